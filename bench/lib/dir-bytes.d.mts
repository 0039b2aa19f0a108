/** Bytes of every file under `dir`, 0 when `dir` does not exist (see dir-bytes.mjs). */
export function dirBytes(dir: string): number;
