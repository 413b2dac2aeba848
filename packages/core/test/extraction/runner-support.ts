import {
  DEFAULT_INFERENCE_SETTINGS,
  type ExtractionDocument,
  type ExtractionOutput,
  type ExtractionRequest,
  type Extractor,
  type InferenceSettings,
  type JsonObject,
} from '@docevals/core';

export const invoiceSchema: JsonObject = {
  type: 'object',
  properties: { invoice_number: { type: 'string' }, total: { type: 'number' } },
  required: ['invoice_number', 'total'],
};

export function settings(overrides: Partial<InferenceSettings> = {}): InferenceSettings {
  return { ...DEFAULT_INFERENCE_SETTINGS, model: 'test-model', ...overrides };
}

export function textDocument(id: string, text: string, mime_type = 'text/plain'): ExtractionDocument {
  return { id, filename: `${id}.txt`, mime_type, bytes: new TextEncoder().encode(text) };
}

export function documents(count: number): ExtractionDocument[] {
  return Array.from({ length: count }, (_, i) => textDocument(`file_${i}`, `doc ${i}`));
}

/**
 * A real Extractor implementation for tests: answers through `respond` after `delayMs`, honours the abort signal,
 * and records calls and the peak number in flight.
 */
export class ScriptedExtractor implements Extractor {
  readonly name = 'scripted';
  readonly requests: ExtractionRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    readonly models: Array<string | RegExp>,
    private readonly respond: (request: ExtractionRequest, call: number) => ExtractionOutput | Promise<ExtractionOutput>,
    private readonly delayMs = 0,
  ) {}

  async extract(request: ExtractionRequest): Promise<ExtractionOutput> {
    const call = this.requests.push(request) - 1;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await abortableDelay(this.delayMs, request.signal);
      return await this.respond(request, call);
    } finally {
      this.inFlight--;
    }
  }

  callsFor(documentId: string): number {
    return this.requests.filter((r) => r.document.id === documentId).length;
  }
}

export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
