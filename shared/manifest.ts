// Shape of dist/client/manifest.json, written by the build and read once by the server.
export interface AssetManifest {
  /** Entry script URLs (content-hashed), in load order. */
  scripts: string[];
  /** Stylesheet URLs (content-hashed). */
  styles: string[];
  /** Chunks the entry imports statically, to modulepreload. */
  preloads: string[];
  /** Dedicated workers' script URLs (content-hashed classic scripts), by name. */
  workers: Record<string, string>;
}
