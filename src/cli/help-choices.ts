// The values of the flags whose choices live in a catalogue (`--fault`, `--scenario`), for
// `<command> --help`. Loaded only when a command's help is asked for: the fault catalogue pulls in
// the emulator's behaviour, which a run against a real target never needs.

import type { Command, FlagChoices } from './flags.js';

export async function helpChoices(command: Command): Promise<FlagChoices> {
  if (command === 'checks') return {};
  // client's --scenario names what the emulator does to the user's client, not a k6 scenario.
  if (command === 'client')
    return { scenario: (await import('../emulator/scenarios/index.js')).CLIENT_SCENARIOS.map((s) => s.name) };
  const [{ FAULTS }, { PROFILES }, { K6_SCENARIO_NAMES }] = await Promise.all([
    import('../emulator/faults/index.js'),
    import('../emulator/profiles/index.js'),
    import('../k6/scenarios.js'),
  ]);
  return { fault: FAULTS.map((f) => f.name), profile: PROFILES.map((p) => p.name), scenario: K6_SCENARIO_NAMES };
}
