// Vite's `?raw` imports: a file's text (tests load styles.css to check the layout rules).
declare module "*?raw" {
  const text: string;
  export default text;
}
