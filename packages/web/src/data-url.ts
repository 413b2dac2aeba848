/** A data URL's content: its media type (without parameters, lower case), its parameters, and its bytes. */
export interface DataUrlContent {
  type: string;
  /** `charset` and the like, names in lower case (`base64` is not one: it says how the bytes are written). */
  parameters: Record<string, string>;
  bytes: Uint8Array<ArrayBuffer>;
}

/**
 * Parses a `data:` URL (RFC 2397): `data:[<media type>][;<name>=<value>]*[;base64],<data>`. The media type may carry
 * parameters (`data:text/plain;charset=utf-8;base64,...`, what browsers and many tools write); none means
 * `text/plain;charset=US-ASCII` as the RFC says. Null when `url` is not a data URL or its base64 is broken.
 */
export function parseDataUrl(url: string): DataUrlContent | null {
  const comma = url.indexOf(',');
  if (!/^data:/i.test(url) || comma === -1) return null;
  const segments = url.slice('data:'.length, comma).split(';').map((segment) => segment.trim());
  const base64 = segments.length > 1 && segments.at(-1)!.toLowerCase() === 'base64';
  if (base64) segments.pop();
  const [mediaType = '', ...rest] = segments;
  const parameters: Record<string, string> = {};
  for (const parameter of rest) {
    const equals = parameter.indexOf('=');
    if (equals > 0) parameters[parameter.slice(0, equals).toLowerCase()] = parameter.slice(equals + 1).replace(/^"(.*)"$/, '$1');
  }
  const type = mediaType.toLowerCase() || 'text/plain';
  if (mediaType === '' && parameters.charset === undefined) parameters.charset = 'US-ASCII';
  const data = url.slice(comma + 1);
  try {
    const bytes = base64 ? Uint8Array.from(atob(decodeURIComponent(data)), (c) => c.charCodeAt(0)) : new TextEncoder().encode(decodeURIComponent(data));
    return { type, parameters, bytes };
  } catch {
    return null;
  }
}

/** The text of a data URL's bytes, in its `charset` (UTF-8 when none or one the browser does not know). */
export function dataUrlText(content: DataUrlContent): string {
  try {
    return new TextDecoder(content.parameters.charset ?? 'utf-8').decode(content.bytes);
  } catch {
    return new TextDecoder().decode(content.bytes);
  }
}
