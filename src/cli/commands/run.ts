import { readFile } from 'node:fs/promises';
import type { Argv, CommandModule } from 'yargs';
import { type JobSpec, parseJobFile } from '../../runner/job-file.js';
import { runJob, type ShopTarget } from '../../runner/run-job.js';
import { parseShard, selectShard } from '../../runner/shard.js';
import { createStorage } from '../../storage/index.js';
import {
  FORMATS,
  interruptible,
  newCliLogger,
  parseList,
  parseResources,
  stagingRootFor,
  withConverterProcess,
} from '../backup-run.js';
import { EXIT } from '../exit-codes.js';
import { describeFailure } from '../failure.js';
import { type S3Flags, s3Options, s3SettingsFrom } from '../s3-flags.js';
import { parseShopAddress } from '../shop-address.js';
import { jobShopToken } from '../token.js';
import { UsageError } from '../usage-error.js';

interface RunFlags extends S3Flags {
  job: string;
  out?: string;
  depth?: number;
  formats?: string;
  resources?: string;
  shard?: string;
  token?: string;
  tokenFile?: string;
  json: boolean;
  verbose: boolean;
}

export const runCommand: CommandModule<object, RunFlags> = {
  command: 'run <job>',
  describe: 'Run a job file: one or more shops, their resources, formats and destination',
  builder: (yargs) =>
    s3Options(yargs as Argv<object>)
      .positional('job', {
        type: 'string',
        demandOption: true,
        describe: 'YAML job file, e.g. jobs/nightly-backup.yaml',
      })
      .option('out', { type: 'string', describe: 'Override the job destination' })
      .option('depth', { type: 'number', describe: 'Override the job depth' })
      .option('formats', { type: 'string', describe: 'Override the job formats' })
      .option('resources', { type: 'string', describe: 'Override the job resources' })
      .option('shard', {
        type: 'string',
        describe: 'This worker’s share of the shops, i/n (default: JOB_COMPLETION_INDEX/SHOPSNAP_SHARD_COUNT or 0/1)',
      })
      // Read by parseShard from the environment; declared so strict parsing accepts SHOPSNAP_SHARD_COUNT.
      .option('shard-count', { type: 'number', hidden: true })
      .option('token', { type: 'string', hidden: true })
      .option('token-file', { type: 'string', hidden: true })
      .example('$0 run jobs/nightly-backup.yaml', 'Every shop of the job')
      .example('$0 run jobs/fleet.yaml --shard 1/3', 'The second of three workers') as never,
  handler: async (flags) => {
    const job = applyOverrides(parseJobFile(await readJobText(flags.job), flags.job), flags);
    const shard = parseShard(flags.shard);
    const shops = selectShard(job.shops, shard, (entry) => parseShopAddress(entry.shop).key);
    // A shop whose token cannot be had fails alone, after the others ran: one missing secret must not stop a worker.
    const targets: ShopTarget[] = await Promise.all(
      shops.map(async (entry) => ({
        shop: parseShopAddress(entry.shop),
        token: await jobShopToken(entry, job.shops.length === 1 ? flags : undefined).catch((error: Error) => error),
      })),
    );
    const logger = newCliLogger(
      flags,
      targets.flatMap((target) => (typeof target.token === 'string' ? [target.token] : [])),
    );
    const storage = await createStorage(job.out, s3SettingsFrom(flags, job.s3));
    const { outcomes, summaryKey } = await withConverterProcess((parquetConverter) =>
      interruptible((signal) =>
        runJob({
          job,
          targets,
          shard,
          storage,
          stagingRoot: stagingRootFor(job.out),
          logger,
          signal,
          parquetConverter,
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
      }
    }
    const failed = outcomes.find((outcome) => outcome.status === 'failed');
    if (failed !== undefined) process.exitCode = describeFailure(failed.cause).exitCode;
    else if (outcomes.some((outcome) => outcome.suspicious_shrink !== undefined))
      process.exitCode = EXIT.suspiciousShrink;
    else if (outcomes.some((outcome) => outcome.status === 'incomplete')) process.exitCode = EXIT.countMismatch;
  },
};

async function readJobText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read job file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** Flags (and SHOPSNAP_* variables, which yargs maps onto them) win over the job file. */
function applyOverrides(job: JobSpec, flags: RunFlags): JobSpec {
  return {
    ...job,
    ...(flags.out === undefined ? {} : { out: flags.out }),
    ...(flags.depth === undefined ? {} : { depth: flags.depth }),
    ...(flags.formats === undefined ? {} : { formats: parseList(flags.formats, FORMATS, 'format') }),
    ...(flags.resources === undefined ? {} : { resources: parseResources(flags.resources) }),
  };
}
