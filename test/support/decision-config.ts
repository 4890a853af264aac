/**
 * @module test/support/decision-config
 * Builds a LoadedConfig from a plain object for tests of the injection decision. It goes
 * through the real parser and validator; only template compilation is refused, because the
 * decision never looks at templates (tests that need templates use config/load.ts).
 */
import { buildConfig } from '../../src/config/build-config.js';
import type { LoadedConfig } from '../../src/config/types.js';
import type { ValidateOptions } from '../../src/config/validate-config.js';

export function decisionConfig(config: Record<string, unknown>, options: ValidateOptions = {}): LoadedConfig {
  return buildConfig(
    { config: JSON.stringify(config), configFile: 'test-config' },
    { kind: 'text', files: [] },
    {
      ...options,
      compile: () => () => {
        throw new Error('decisionConfig: configs for decision tests must not contain templates');
      },
    },
  );
}
