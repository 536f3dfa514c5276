import { describeSchema } from '../../transform/index.js';
import { defineCommand } from '../command.js';

export const schemaCommand = defineCommand({
  name: 'schema',
  describe: 'Print every output table and column with its type',
  flags: {},
  examples: [['Every table, for tools', '$0 schema --json']],
  run: (args) => {
    process.stdout.write(describeSchema(args.json ? 'json' : 'text'));
  },
});
