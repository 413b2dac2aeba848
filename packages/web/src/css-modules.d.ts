// A stylesheet imported for its effect (Vite adds it to the page): no exports.
declare module '@fontsource/noto-sans-jp/400.css';
