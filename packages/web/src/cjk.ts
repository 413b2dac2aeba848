/** Chinese, Japanese or Korean characters (kana, CJK ideographs, Hangul, full-width forms). */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]/;

let loading: Promise<unknown> | null = null;

/**
 * Loads Noto Sans JP (`@fontsource/noto-sans-jp`, weight 400: its CSS and, as the browser needs them, the font files
 * of the characters shown, by `unicode-range`) the first time a text with CJK characters is shown, so that Japanese
 * renders on a machine without a CJK font; the font stacks of styles.css end with it. Nothing is loaded otherwise.
 */
export function loadCjkFontFor(text: string | undefined): void {
  if (loading !== null || text === undefined || !CJK.test(text)) return;
  loading = import('@fontsource/noto-sans-jp/400.css').then(() => document.documentElement.classList.add('cjk'));
}
