export { openaiExtractor, buildRequest, type OpenAIExtractorOptions, type BuildRequestOptions } from './openai-extractor.js';
export { likelihoodsFromLogprobs, type TokenLogprob } from './likelihoods.js';
export { computeCost, DEFAULT_PRICES, findPrice, type ModelPrice } from './prices.js';
export { isReasoningModel, modelModalities, samplingParams, supportsLogprobs } from './model-capabilities.js';
export { allowsStrict, schemaName, systemPrompt } from './response-format.js';
export { documentContent, pdfText, DEFAULT_MAX_PAGES, type DocumentContentOptions } from './document-content.js';
export { renderPdfPages, pngSize, type RenderedPage } from './render-pages.js';
export { renderTextPages, pagePixels, PAGE_SIZES_MM } from './render-text.js';
export { toExtractionFailure } from './error-mapping.js';
