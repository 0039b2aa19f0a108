/** The part of `fs-native-extensions` (holepunchto) shoal uses: advisory whole-file locks. */
declare module 'fs-native-extensions' {
  /**
   * Asks for a lock on the file behind `fd` without waiting: true when granted, false when another open
   * file description holds it. Linux: an open-file-description lock (fcntl F_OFD_SETLK); macOS: flock.
   */
  export function tryLock(fd: number, options?: { readonly shared?: boolean }): boolean;
  /** Releases a lock taken on `fd` (closing the descriptor releases it too). */
  export function unlock(fd: number): void;
}
