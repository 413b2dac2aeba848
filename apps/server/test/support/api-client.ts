/** A JSON client for one server and key: `call(method, path, body?)` -> `{ status, body, text }` (an empty answer: `body` undefined). */
export function apiClient(url: string, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: (text ? JSON.parse(text) : undefined) as any };
  };
}
