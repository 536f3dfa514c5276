import { verifyPassed, verifySnapshot } from '../../snapshot/verify.js';
import { openSnapshotLocation } from '../../storage/index.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { S3_READ_FLAGS, s3SettingsFrom } from '../s3-flags.js';

export const verifyCommand = defineCommand({
  name: 'verify',
  describe: 'Re-hash and re-count every file of a snapshot against its manifest',
  positionals: { location: 'Snapshot folder or s3:// URL' },
  flags: S3_READ_FLAGS,
  examples: [
    ['Check a local snapshot', '$0 verify ./snapshots/my-shop.myshopify.com/20261122T050623123Z'],
    ['Check one in S3', '$0 verify s3://backups/my-shop.myshopify.com/20261122T050623123Z'],
  ],
  run: async (args) => {
    const { storage, prefix } = await openSnapshotLocation(args.location, s3SettingsFrom(args));
    const report = await verifySnapshot(storage, prefix);
    const passed = verifyPassed(report);
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ ...report, passed }, null, 2)}\n`);
    } else {
      const lines = [
        ...report.missing.map((path) => `missing   ${path}`),
        ...report.extra.map((path) => `extra     ${path}`),
        ...report.differing.map(({ path, reason }) => `differs   ${path}: ${reason}`),
        `${report.checked} files checked, ${report.missing.length} missing, ${report.extra.length} extra, ${report.differing.length} differing`,
        passed ? `OK ${report.location}` : `FAILED ${report.location}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    process.exitCode = passed ? EXIT.complete : EXIT.verifyFailed;
  },
});
