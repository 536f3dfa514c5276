import { readFile } from 'node:fs/promises';
import { fileErrorReason } from '../../local-file.js';
import { type JobSpec, parseJobFile } from '../../runner/job-file.js';
import { runJob, type ShopTarget } from '../../runner/run-job.js';
import { parseShard, selectShard } from '../../runner/shard.js';
import { createStorage } from '../../storage/index.js';
import {
  interruptible,
  newCliLogger,
  OUTPUT_FLAGS,
  STATS_FLAG,
  stagingRootFor,
  withBackupWorkers,
} from '../backup-run.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { describeFailure } from '../failure.js';
import { type FlagValues, flag } from '../flags.js';
import { S3_WRITE_FLAGS, s3SettingsFrom } from '../s3-flags.js';
import { parseShopAddress } from '../shop-address.js';
import { SHOP_FLAGS } from '../shop-flags.js';
import { jobShopToken } from '../token.js';
import { UsageError } from '../usage-error.js';

export const runCommand = defineCommand({
  name: 'run',
  describe: 'Run a job file: one or more shops, their resources, formats and destination',
  positionals: { job: 'YAML job file, e.g. jobs/nightly-backup.yaml' },
  flags: {
    ...OUTPUT_FLAGS,
    shard: flag.string({
      describe: 'This worker’s share of the shops, i/n (default: JOB_COMPLETION_INDEX/SHOPSNAP_SHARD_COUNT, or 0/1)',
    }),
    // A fleet shows no live display: its progress lines are printed on a terminal too.
    stats: STATS_FLAG,
    acceptShrink: flag.boolean({
      describe: 'Every shop of this run really lost records: a suspicious shrink is accepted as the new baseline',
      env: true,
    }),
    ...S3_WRITE_FLAGS,
    // A job of one shop without token_env or token_file takes the token as `backup` does.
    token: { ...SHOP_FLAGS.token, hidden: true },
    tokenFile: { ...SHOP_FLAGS.tokenFile, hidden: true },
  },
  variables: { SHOPSNAP_SHARD_COUNT: 'the number of workers, when JOB_COMPLETION_INDEX gives this one’s index' },
  examples: [
    ['Every shop of the job', '$0 run jobs/nightly-backup.yaml'],
    ['The second of three workers', '$0 run jobs/fleet.yaml --shard 1/3'],
    ['Flags and their variables win over the job file', '$0 run jobs/nightly-backup.yaml --out ./snapshots'],
  ],
  run: async (flags) => {
    const job = applyOverrides(parseJobFile(await readJobText(flags.job), flags.job), flags);
    const shard = parseShard(flags.shard);
    const shops = selectShard(job.shops, shard, (entry) => parseShopAddress(entry.shop).key);
    // A shop whose token cannot be had fails alone, after the others ran: one missing secret must not stop a worker.
    const targets: ShopTarget[] = await Promise.all(
      shops.map(async (entry) => ({
        shop: parseShopAddress(entry.shop),
        token: await jobShopToken(entry, job.shops.length === 1 ? flags : undefined).catch((error: Error) => error),
        acceptShrink: flags.acceptShrink ?? entry.acceptShrink ?? false,
      })),
    );
    const logger = newCliLogger(
      flags,
      targets.flatMap((target) => (typeof target.token === 'string' ? [target.token] : [])),
    );
    const storage = await createStorage(job.out, s3SettingsFrom(flags, job.s3));
    const { outcomes, summaryKey } = await withBackupWorkers((workers) =>
      interruptible((signal) =>
        runJob({
          job,
          targets,
          shard,
          storage,
          stagingRoot: stagingRootFor(job.out),
          logger,
          signal,
          ...workers,
          statsIntervalMs: flags.stats * 1000,
        }),
      ),
    );
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify({ summary: summaryKey, shops: outcomes.map(({ cause: _c, ...o }) => o) }, null, 2)}\n`,
      );
    } else {
      for (const outcome of outcomes) {
        if (outcome.location !== undefined) process.stdout.write(`${outcome.location}\n`);
        else process.stderr.write(`shopsnap: ${outcome.shop} failed: ${outcome.error}\n`);
        if (outcome.prune_error !== undefined) {
          process.stderr.write(`shopsnap: ${outcome.shop}: ${outcome.prune_error}\n`);
        }
      }
    }
    const failed =
      outcomes.find((outcome) => outcome.status === 'failed') ??
      outcomes.find((outcome) => outcome.prune_error !== undefined);
    if (failed !== undefined) process.exitCode = describeFailure(failed.cause).exitCode;
    else if (outcomes.some((outcome) => outcome.suspicious_shrink !== undefined && outcome.status === 'incomplete'))
      process.exitCode = EXIT.suspiciousShrink;
    else if (outcomes.some((outcome) => outcome.status === 'incomplete')) process.exitCode = EXIT.countMismatch;
  },
});

async function readJobText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read job file ${path}: ${fileErrorReason(error)}`);
  }
}

/** Flags (and their SHOPSNAP_* variables) win over the job file. */
function applyOverrides(job: JobSpec, flags: Partial<FlagValues<typeof OUTPUT_FLAGS>>): JobSpec {
  return {
    ...job,
    ...(flags.out === undefined ? {} : { out: flags.out }),
    ...(flags.depth === undefined ? {} : { depth: flags.depth }),
    ...(flags.formats === undefined ? {} : { formats: flags.formats }),
    ...(flags.resources === undefined ? {} : { resources: flags.resources }),
  };
}
