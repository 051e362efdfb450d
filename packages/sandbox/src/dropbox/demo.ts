/**
 * A few files for a new sandbox user to list, search and download: a README at the root, a report and
 * a spreadsheet under /Reports, a photo under /Photos and a Paper doc under /Notes.
 */
import type { DropboxEmulator } from './emulator.js';

export function seedDropboxDemo(emulator: DropboxEmulator, token: string): void {
  emulator.putFile(token, '/README.txt', 'Welcome to the sandbox Dropbox. Try searching for "report".\n');
  emulator.putFile(token, '/Reports/Q3 report.txt', 'Quarterly report: revenue grew 12% while costs stayed flat.\n');
  emulator.putFile(token, '/Reports/budget.csv', 'item,amount\nads,5000\nevents,3000\n');
  emulator.putFile(token, '/Photos/team offsite.jpg', demoJpeg());
  emulator.putFile(token, '/Notes/Launch plan.paper', 'Launch plan: announce on the blog, then email the beta list.\n');
}

/**
 * A real JPEG, so that downloads of the demo photo exercise binary content (0xFF is never valid UTF-8):
 * a 1×1 grey baseline JFIF, built here rather than shipped as a file. Its one block has DC difference 0
 * and no AC coefficients, so each Huffman table needs one symbol with the one-bit code 0.
 */
export function demoJpeg(): Buffer {
  const segment = (marker: number, payload: number[]) => [0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload];
  const oneSymbolTable = (tableClass: number, symbol: number) => [tableClass << 4, 1, ...new Array<number>(15).fill(0), symbol];
  return Buffer.from([
    0xff,
    0xd8, // SOI
    ...segment(0xe0, [...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]), // APP0: JFIF 1.01, 1:1 aspect, no thumbnail
    ...segment(0xdb, [0, ...new Array<number>(64).fill(1)]), // DQT: table 0, all ones
    ...segment(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]), // SOF0: 8-bit, 1×1, one component (id 1, 1×1 sampling, table 0)
    ...segment(0xc4, oneSymbolTable(0, 0)), // DHT: DC table 0, category 0
    ...segment(0xc4, oneSymbolTable(1, 0)), // DHT: AC table 0, end of block
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // SOS: component 1 with DC/AC tables 0, full spectrum
    0b0011_1111, // the block: DC code 0, EOB code 0, padded with ones
    0xff,
    0xd9, // EOI
  ]);
}
