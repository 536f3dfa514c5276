import { describe, expect, it } from 'vitest';
import { allCommands, COMMANDS } from '../../src/cli/command-list.js';

describe('the command list (main.ts loads only the command a run names)', () => {
  it('loads under each name the command of that name', async () => {
    const loaded = await allCommands();
    expect(loaded.map((command) => command.name)).toEqual(Object.keys(COMMANDS));
  });
});
