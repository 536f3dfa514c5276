import type { CommandModule } from 'yargs';
import { verifyPassed, verifySnapshot } from '../../snapshot/verify.js';
import { openSnapshotLocation } from '../../storage/index.js';
import { EXIT } from '../exit-codes.js';
import { type S3Flags, s3Options, s3SettingsFrom } from '../s3-flags.js';

export const verifyCommand: CommandModule<object, S3Flags & { location: string; json: boolean }> = {
  command: 'verify <location>',
  describe: 'Re-hash and re-count every file of a snapshot against its manifest',
  builder: (yargs) =>
    s3Options(yargs)
      .positional('location', { type: 'string', demandOption: true, describe: 'Snapshot folder or s3:// URL' })
      .example('$0 verify ./snapshots/my-shop.myshopify.com/20261122T050623123Z', 'Check a local snapshot')
      .example('$0 verify s3://backups/shops/my-shop.myshopify.com/20261122T050623123Z', 'Check one in S3') as never,
  handler: async (args) => {
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
};
