/**
 * A few files for a new sandbox user to list, search and download: a README at the root, a report and
 * a spreadsheet under /Reports, a photo under /Photos and a Paper doc under /Notes.
 */
import type { DropboxEmulator } from './emulator.js';

export function seedDropboxDemo(emulator: DropboxEmulator, token: string): void {
  emulator.putFile(token, '/README.txt', 'Welcome to the sandbox Dropbox. Try searching for "report".\n');
  emulator.putFile(token, '/Reports/Q3 report.txt', 'Quarterly report: revenue grew 12% while costs stayed flat.\n');
  emulator.putFile(token, '/Reports/budget.csv', 'item,amount\nads,5000\nevents,3000\n');
  emulator.putFile(token, '/Photos/team offsite.jpg', 'not really a JPEG');
  emulator.putFile(token, '/Notes/Launch plan.paper', 'Launch plan: announce on the blog, then email the beta list.\n');
}
