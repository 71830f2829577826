// A worker script imported for its URL: scripts/build.ts bundles it on its own, content-hashed.
declare module '*?worker-url' {
  const url: string;
  export default url;
}
