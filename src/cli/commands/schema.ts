import type { CommandModule } from 'yargs';
import { describeSchema } from '../../transform/index.js';

export const schemaCommand: CommandModule<object, { json: boolean }> = {
  command: 'schema',
  describe: 'Print every output table and column with its type',
  handler: (args) => {
    process.stdout.write(describeSchema(args.json ? 'json' : 'text'));
  },
};
