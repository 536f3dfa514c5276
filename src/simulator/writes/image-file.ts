import { createHash } from 'node:crypto';

/** What Shopify learns from an uploaded image file: its type and size in pixels (0 when it cannot tell). */
export interface ImageFile {
  extension: string;
  width: number;
  height: number;
  /** The name Shopify stores an attachment without a file name under (EX22: `df3e567d….gif`). */
  hashedName: string;
}

/** Size of a JPEG from its first start-of-frame marker. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  let at = 2;
  while (at + 9 < bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1] as number;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrame) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return { width: 0, height: 0 };
}

/** Reads a base64 `attachment` (line breaks allowed, as EX22 sends them); undefined when it is not base64. */
export function readImageFile(attachment: string): ImageFile | undefined {
  const text = attachment.replace(/\s+/g, '');
  if (text === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  const hashedName = createHash('md5').update(bytes).digest('hex');
  const file = (extension: string, width: number, height: number) => ({
    extension,
    width,
    height,
    hashedName: `${hashedName}.${extension}`,
  });
  if (bytes.subarray(0, 6).toString('latin1').startsWith('GIF8') && bytes.length >= 10) {
    return file('gif', bytes.readUInt16LE(6), bytes.readUInt16LE(8));
  }
  if (bytes.subarray(1, 4).toString('latin1') === 'PNG' && bytes.length >= 24) {
    return file('png', bytes.readUInt32BE(16), bytes.readUInt32BE(20));
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const size = jpegSize(bytes);
    return file('jpg', size.width, size.height);
  }
  return file('jpg', 0, 0);
}
