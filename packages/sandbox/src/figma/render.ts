/**
 * Real image files for exports: a node renders as a rectangle of its colour at its size, in the format
 * asked for. Small encoders, so that a downloaded export opens in any viewer and carries its true size.
 */
import { crc32, deflateSync } from 'node:zlib';

export type ImageFormat = 'png' | 'jpg' | 'svg' | 'pdf';
/** 0–255 per channel. */
export type Rgb = [number, number, number];

export const contentTypes: Record<ImageFormat, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

export function render(format: ImageFormat, width: number, height: number, color: Rgb, title: string): Buffer {
  switch (format) {
    case 'png':
      return png(width, height, color);
    case 'jpg':
      return jpeg(width, height, color);
    case 'svg':
      return svg(width, height, color, title);
    case 'pdf':
      return pdf(width, height, color);
  }
}

// ---- PNG: 8-bit truecolour, one IDAT, no filtering.

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(width: number, height: number, [r, g, b]: Rgb): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, RGB, deflate, no filter method, no interlace
  const row = Buffer.alloc(1 + width * 3); // filter byte 0, then the pixels
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const raw = Buffer.alloc(row.length * height);
  for (let y = 0; y < height; y++) row.copy(raw, y * row.length);
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

// ---- JPEG: baseline, 4:4:4 YCbCr, quantisation 1. A flat colour has only DC coefficients, so each
// 8x8 block is its DC difference (non-zero in the first block of each component) and an end-of-block.

/** The standard luminance DC table (ITU T.81, Annex K.3): code lengths 1..16, then the categories. */
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
/** An AC table holding only end-of-block, which is all a flat block needs. */
const AC_BITS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const AC_VALUES = [0x00];

function huffmanCodes(bits: number[], values: number[]): Map<number, { code: number; length: number }> {
  const codes = new Map<number, { code: number; length: number }>();
  let code = 0;
  let next = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < bits[length - 1]!; i++) codes.set(values[next++]!, { code: code++, length });
    code <<= 1;
  }
  return codes;
}

class BitWriter {
  readonly bytes: number[] = [];
  private byte = 0;
  private count = 0;

  write(code: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.byte = (this.byte << 1) | ((code >> i) & 1);
      if (++this.count === 8) {
        this.bytes.push(this.byte);
        if (this.byte === 0xff) this.bytes.push(0x00); // a data 0xFF is stuffed so it cannot read as a marker
        this.byte = 0;
        this.count = 0;
      }
    }
  }

  /** The last byte is padded with 1 bits. */
  flush(): void {
    while (this.count !== 0) this.write(1, 1);
  }
}

const segment = (marker: number, data: number[]) => [0xff, marker, (data.length + 2) >> 8, (data.length + 2) & 0xff, ...data];

function jpeg(width: number, height: number, [r, g, b]: Rgb): Buffer {
  const components = [0.299 * r + 0.587 * g + 0.114 * b, -0.168736 * r - 0.331264 * g + 0.5 * b + 128, 0.5 * r - 0.418688 * g - 0.081312 * b + 128].map(
    (value) => Math.round((Math.min(255, Math.max(0, value)) - 128) * 8),
  ); // DC of a flat 8x8 block
  const dc = huffmanCodes(DC_BITS, DC_VALUES);
  const endOfBlock = huffmanCodes(AC_BITS, AC_VALUES).get(0)!;
  const bits = new BitWriter();
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  for (let block = 0; block < blocks; block++) {
    for (const value of components) {
      const diff = block === 0 ? value : 0;
      const category = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
      const code = dc.get(category)!;
      bits.write(code.code, code.length);
      if (category > 0) bits.write(diff > 0 ? diff : diff + (1 << category) - 1, category);
      bits.write(endOfBlock.code, endOfBlock.length);
    }
  }
  bits.flush();
  const word = (n: number) => [n >> 8, n & 0xff];
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]), // JFIF 1.1
    ...segment(0xdb, [0x00, ...new Array<number>(64).fill(1)]),
    ...segment(0xc0, [8, ...word(height), ...word(width), 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]),
    ...segment(0xc4, [0x00, ...DC_BITS, ...DC_VALUES, 0x10, ...AC_BITS, ...AC_VALUES]),
    ...segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]),
    ...bits.bytes,
    0xff,
    0xd9,
  ]);
}

// ---- SVG and PDF: vector, at the node's size.

const hex = (color: Rgb) => `#${color.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
const escapeXml = (text: string) => text.replace(/[<>&"]/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot' }[c]};`);

function svg(width: number, height: number, color: Rgb, title: string): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
      `<title>${escapeXml(title)}</title><rect width="${width}" height="${height}" fill="${hex(color)}"/></svg>\n`,
  );
}

function pdf(width: number, height: number, color: Rgb): Buffer {
  const fill = color.map((c) => (c / 255).toFixed(3)).join(' ');
  const content = `${fill} rg 0 0 ${width} ${height} re f\n`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents 4 0 R >>`,
    `<< /Length ${content.length} >>\nstream\n${content}endstream`,
  ];
  let text = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(text.length);
    text += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(text, 'latin1');
}
