import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createGunzip, createInflateRaw } from 'node:zlib';
import type { IngestLimits, SkippedFile } from '../domain/sources';

export type ArchiveFormat = 'tar.gz' | 'zip';

export function archiveFormat(name: string, bytes: Uint8Array): ArchiveFormat | undefined {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'zip';
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  if (/\.zip$/i.test(name)) return 'zip';
  if (/\.(tar\.gz|tgz)$/i.test(name)) return 'tar.gz';
  return undefined;
}

/** An archive the limits refuse, or one that cannot be read: the fetch stage fails with this reason. */
export class ArchiveRefused extends Error {}

/** 1048576 → "1 MiB": limits as an operator wrote them. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (n >= size) return `${Number((n / size).toFixed(1))} ${unit}`;
  }
  return `${n} bytes`;
}

export interface Unpacked {
  /** The source root: the single top-level folder when there is one (GitHub-style archives), otherwise `dest`. */
  readonly root: string;
  readonly skipped: readonly SkippedFile[];
  readonly files: number;
  /** Bytes decompressed. */
  readonly bytes: number;
}

/** What one unpacking has used of its limits so far. */
class Budget {
  bytes = 0;
  files = 0;
  readonly skipped: SkippedFile[] = [];
  constructor(readonly limits: IngestLimits) {}

  /** Counts decompressed bytes; refuses the archive as soon as they pass the total. */
  unpacked(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.maxUnpackedBytes) throw this.tooLarge();
  }
  tooLarge(): ArchiveRefused {
    return new ArchiveRefused(
      `archive refused: it unpacks to more than ${formatBytes(this.limits.maxUnpackedBytes)} (LINKER_MAX_UNPACKED_BYTES)`,
    );
  }
  file(): void {
    this.files += 1;
    if (this.files > this.limits.maxFiles) throw this.tooMany();
  }
  /** `count` when the whole count is known (a zip's directory). */
  tooMany(count?: number): ArchiveRefused {
    const held = count === undefined ? '' : ` (${count})`;
    return new ArchiveRefused(
      `archive refused: it holds more than ${this.limits.maxFiles} files${held} (LINKER_MAX_FILES)`,
    );
  }
  oversized(path: string): void {
    this.skipped.push({ path, reason: `larger than ${formatBytes(this.limits.maxFileBytes)} (LINKER_MAX_FILE_BYTES)` });
  }
}

/**
 * A member's path below the destination, or undefined when it would leave it (`..`, absolute, a drive letter).
 * Only directories and regular files are ever created, so no symlink can redirect a later member.
 */
function safePath(name: string): string | undefined {
  const n = name.replace(/\\/g, '/');
  if (n.startsWith('/') || /^[a-zA-Z]:/.test(n) || n.includes('\0')) return undefined;
  const segs = n.split('/').filter((s) => s !== '' && s !== '.');
  if (segs.length === 0 || segs.includes('..')) return undefined;
  return segs.join('/');
}

async function writeMember(dest: string, path: string, data: Uint8Array, budget: Budget): Promise<void> {
  const abs = join(dest, path);
  try {
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, data);
  } catch (err) {
    // A file where a folder of the same name was (or the reverse): that member is left out, the rest go on.
    budget.skipped.push({ path, reason: `not written (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
  }
}

/**
 * Unpacks an uploaded archive into `dest`, in this process and as a stream: decompressed bytes and files are
 * counted as they come, and the archive is refused (ArchiveRefused, with the limit named) the moment it passes
 * `maxUnpackedBytes` or `maxFiles`, so a zip bomb costs at most the limits in disk and never more than one file
 * in memory. A file larger than `maxFileBytes` is skipped (listed in `skipped`) and the others are unpacked.
 * Members that would leave `dest`, links, devices and encrypted zip members are skipped too.
 */
export async function unpack(
  bytes: Uint8Array,
  format: ArchiveFormat,
  dest: string,
  limits: IngestLimits,
): Promise<Unpacked> {
  const budget = new Budget(limits);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 'zip') await unpackZip(buf, dest, budget);
  else await unpackTarGz(buf, dest, budget);
  const entries = (await readdir(dest, { withFileTypes: true })).filter((e) => !e.name.startsWith('__MACOSX'));
  const root = entries.length === 1 && entries[0]!.isDirectory() ? join(dest, entries[0]!.name) : dest;
  return { root, skipped: budget.skipped, files: budget.files, bytes: budget.bytes };
}

// ---- zip: the central directory first (every size and the file count are known before anything is written)

interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  dir: boolean;
  link: boolean;
}

const notZip = (why: string): ArchiveRefused => new ArchiveRefused(`not a readable .zip archive (${why})`);

function zipEntries(buf: Buffer): ZipEntry[] {
  // End of central directory: 22 bytes plus a comment of at most 65535.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw notZip('no central directory');
  let count = buf.readUInt16LE(eocd + 10);
  let cdOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) {
    // Zip64: the locator just before says where the zip64 end record is.
    const loc = eocd - 20;
    if (loc < 0 || buf.readUInt32LE(loc) !== 0x07064b50) throw notZip('zip64 locator missing');
    const z = Number(buf.readBigUInt64LE(loc + 8));
    if (z + 56 > buf.length || buf.readUInt32LE(z) !== 0x06064b50) throw notZip('zip64 end record missing');
    count = Number(buf.readBigUInt64LE(z + 32));
    cdOffset = Number(buf.readBigUInt64LE(z + 48));
  }
  const out: ZipEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50) throw notZip('bad central directory entry');
    const madeBy = buf.readUInt16LE(p + 4) >> 8;
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    let compressedSize = buf.readUInt32LE(p + 20);
    let size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const external = buf.readUInt32LE(p + 38);
    let localOffset = buf.readUInt32LE(p + 42);
    const name = buf.toString(flags & 0x800 ? 'utf8' : 'latin1', p + 46, p + 46 + nameLen);
    // Zip64 extra field: the 64-bit values of the fields that say 0xffffffff, in this order.
    let e = p + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e + 4 <= extraEnd) {
      const id = buf.readUInt16LE(e);
      const len = buf.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (size === 0xffffffff) {
          size = Number(buf.readBigUInt64LE(q));
          q += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = Number(buf.readBigUInt64LE(q));
          q += 8;
        }
        if (localOffset === 0xffffffff) localOffset = Number(buf.readBigUInt64LE(q));
      }
      e += 4 + len;
    }
    const unixMode = madeBy === 3 ? external >>> 16 : 0;
    out.push({
      name,
      method,
      flags,
      compressedSize,
      size,
      localOffset,
      dir: name.endsWith('/') || name.endsWith('\\') || (unixMode & 0o170000) === 0o040000,
      link: (unixMode & 0o170000) === 0o120000,
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** A member's bytes, inflated as a stream: undefined when it turns out larger than `maxFileBytes`. */
async function zipMember(buf: Buffer, e: ZipEntry, budget: Budget): Promise<Buffer | undefined> {
  const h = e.localOffset;
  if (h + 30 > buf.length || buf.readUInt32LE(h) !== 0x04034b50) throw notZip(`bad local header of ${e.name}`);
  const start = h + 30 + buf.readUInt16LE(h + 26) + buf.readUInt16LE(h + 28);
  if (start + e.compressedSize > buf.length) throw notZip(`${e.name} is cut off`);
  const data = buf.subarray(start, start + e.compressedSize);
  const max = budget.limits.maxFileBytes;
  if (e.method === 0) {
    if (data.length > max) return undefined;
    budget.unpacked(data.length);
    return data;
  }
  const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
  inflate.end(data);
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    // The size in the directory may lie: what counts is what comes out.
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      budget.unpacked(chunk.length);
      n += chunk.length;
      if (n > max) return undefined;
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ArchiveRefused) throw err;
    throw notZip(`${e.name} does not inflate`);
  } finally {
    inflate.destroy();
  }
  return Buffer.concat(chunks, n);
}

async function unpackZip(buf: Buffer, dest: string, budget: Budget): Promise<void> {
  const entries = zipEntries(buf);
  const files = entries.filter((e) => !e.dir);
  const { maxFiles, maxFileBytes, maxUnpackedBytes } = budget.limits;
  // Refused before anything is written when the directory already says so.
  if (files.length > maxFiles) throw budget.tooMany(files.length);
  const declared = files.filter((e) => e.size <= maxFileBytes).reduce((s, e) => s + e.size, 0);
  if (declared > maxUnpackedBytes) throw budget.tooLarge();
  for (const e of entries) {
    const path = safePath(e.name);
    if (e.dir) {
      if (path) await mkdir(join(dest, path), { recursive: true });
      continue;
    }
    budget.file();
    if (!path) budget.skipped.push({ path: e.name, reason: 'path outside the archive' });
    else if (e.link) budget.skipped.push({ path, reason: 'symbolic link' });
    else if (e.flags & 0x1) budget.skipped.push({ path, reason: 'encrypted' });
    else if (e.method !== 0 && e.method !== 8) budget.skipped.push({ path, reason: `compression method ${e.method}` });
    else if (e.size > maxFileBytes) budget.oversized(path);
    else {
      const data = await zipMember(buf, e, budget);
      if (data) await writeMember(dest, path, data, budget);
      else budget.oversized(path);
    }
  }
}

// ---- tar.gz: one pass over the gunzipped stream, 512-byte blocks

/** Bytes taken from the front of a list of chunks without copying more than asked. */
class ByteQueue {
  #chunks: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    this.#chunks.push(b);
    this.length += b.length;
  }
  take(n: number): Buffer {
    const out: Buffer[] = [];
    let left = n;
    while (left > 0) {
      const c = this.#chunks[0]!;
      if (c.length <= left) {
        out.push(c);
        this.#chunks.shift();
        left -= c.length;
      } else {
        out.push(c.subarray(0, left));
        this.#chunks[0] = c.subarray(left);
        left = 0;
      }
    }
    this.length -= n;
    return out.length === 1 ? out[0]! : Buffer.concat(out, n);
  }
}

const notTar = (why: string): ArchiveRefused => new ArchiveRefused(`not a readable .tar.gz archive (${why})`);
const cstr = (b: Buffer, from: number, len: number): string => {
  const s = b.subarray(from, from + len);
  const end = s.indexOf(0);
  return s.toString('utf8', 0, end < 0 ? s.length : end);
};

function tarNumber(b: Buffer, from: number, len: number): number {
  if (b[from]! & 0x80) {
    // GNU base-256 for sizes of 8 GiB and more.
    let n = 0;
    for (let i = from + 1; i < from + len; i++) n = n * 256 + b[i]!;
    return n;
  }
  const s = cstr(b, from, len).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw notTar('bad number in a header');
  return parseInt(s, 8);
}

/** Headers of metadata (pax records, GNU long names) larger than this are not believed. */
const MAX_META_BYTES = 1024 * 1024;

interface Pending {
  path: string | undefined;
  /** Bytes of data (and padding to 512) still to come. */
  data: number;
  padding: number;
  kind: 'file' | 'dir' | 'skip' | 'pax' | 'longname';
  chunks: Buffer[];
  size: number;
}

async function unpackTarGz(buf: Buffer, dest: string, budget: Budget): Promise<void> {
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  gunzip.end(buf);
  const q = new ByteQueue();
  let entry: Pending | undefined;
  let paxPath: string | undefined;
  let paxSize: number | undefined;
  let longName: string | undefined;
  let ended = false;
  const max = budget.limits.maxFileBytes;

  const header = (h: Buffer): Pending | 'end' => {
    if (h.every((x) => x === 0)) return 'end';
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== tarNumber(h, 148, 8)) throw notTar('bad header checksum');
    const type = String.fromCharCode(h[156]!);
    const prefix = h.toString('latin1', 257, 262) === 'ustar' ? cstr(h, 345, 155) : '';
    const name = longName ?? paxPath ?? (prefix ? `${prefix}/${cstr(h, 0, 100)}` : cstr(h, 0, 100));
    const size = paxSize ?? tarNumber(h, 124, 12);
    const isMeta = type === 'x' || type === 'g' || type === 'L' || type === 'K';
    if (!isMeta) [longName, paxPath, paxSize] = [undefined, undefined, undefined];
    const padding = (512 - (size % 512)) % 512;
    const base = { data: size, padding, chunks: [], size };
    if (type === 'x' || type === 'L') {
      if (size > MAX_META_BYTES) throw notTar('oversized extended header');
      return { ...base, path: undefined, kind: type === 'x' ? 'pax' : 'longname' };
    }
    if (type === 'g' || type === 'K') return { ...base, path: undefined, kind: 'skip' };
    const path = safePath(name);
    if (type === '5') return { ...base, path, kind: path ? 'dir' : 'skip' };
    budget.file();
    if (type !== '0' && type !== '\0' && type !== '7') {
      const what = type === '1' || type === '2' ? 'link' : `entry type ${type}`;
      budget.skipped.push({ path: path ?? name, reason: what });
      return { ...base, path: undefined, kind: 'skip' };
    }
    if (!path) {
      budget.skipped.push({ path: name, reason: 'path outside the archive' });
      return { ...base, path: undefined, kind: 'skip' };
    }
    if (size > max) {
      // Read through (the stream goes on behind it), counted, not kept.
      budget.oversized(path);
      return { ...base, path: undefined, kind: 'skip' };
    }
    return { ...base, path, kind: 'file' };
  };

  const finish = async (e: Pending): Promise<void> => {
    if (e.kind === 'file') await writeMember(dest, e.path!, Buffer.concat(e.chunks, e.size), budget);
    else if (e.kind === 'dir') await mkdir(join(dest, e.path!), { recursive: true }).catch(() => undefined);
    else if (e.kind === 'longname') longName = Buffer.concat(e.chunks).toString('utf8').replace(/\0.*$/s, '');
    else if (e.kind === 'pax') {
      // Records "<len> <key>=<value>\n".
      const text = Buffer.concat(e.chunks).toString('utf8');
      for (const m of text.matchAll(/^\d+ ([^=\n]+)=(.*)$/gm)) {
        if (m[1] === 'path') paxPath = m[2];
        else if (m[1] === 'size' && /^\d+$/.test(m[2]!)) paxSize = Number(m[2]);
      }
    }
  };

  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      budget.unpacked(chunk.length);
      q.push(chunk);
      for (;;) {
        if (!entry) {
          if (q.length < 512) break;
          const h = header(q.take(512));
          if (h === 'end') {
            ended = true;
            break;
          }
          entry = h;
        }
        if (entry.data > 0) {
          const n = Math.min(entry.data, q.length);
          if (n === 0) break;
          const part = q.take(n);
          if (entry.kind !== 'skip' && entry.kind !== 'dir') entry.chunks.push(part);
          entry.data -= n;
          if (entry.data > 0) break;
        }
        if (entry.padding > 0) {
          const n = Math.min(entry.padding, q.length);
          q.take(n);
          entry.padding -= n;
          if (entry.padding > 0) break;
        }
        await finish(entry);
        entry = undefined;
      }
      if (ended) break;
    }
  } catch (err) {
    if (err instanceof ArchiveRefused) throw err;
    throw notTar((err as Error).message);
  } finally {
    gunzip.destroy();
  }
  if (!ended && entry) throw notTar('cut off');
}
