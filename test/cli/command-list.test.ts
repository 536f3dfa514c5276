import { describe, expect, it } from 'vitest';
import { allCommands, COMMANDS } from '../../src/cli/command-list.js';

describe('the command list (main.ts loads only the command a run names)', () => {
  it('lists each command under its own name, in the order --help shows them', async () => {
    const loaded = await allCommands();
    expect(loaded.map((command) => command.name)).toEqual(Object.keys(COMMANDS));
    for (const [name, load] of Object.entries(COMMANDS)) expect((await load()).name).toBe(name);
  });
});
