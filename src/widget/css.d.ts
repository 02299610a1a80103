// Style sheets are bundled as text by esbuild (src/widget/build.ts) and adopted into the shadow root.
declare module '*.css' {
  const text: string;
  export default text;
}
