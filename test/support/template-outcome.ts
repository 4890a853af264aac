/**
 * @module test/support/template-outcome
 * Renders a template the way the engine's unit tests compare with Go: the output, or
 * `parse: MESSAGE` / `exec: MESSAGE` for a TemplateError in that phase. Anything else thrown
 * is reported as `CRASH: ...` so a test fails loudly when something other than a
 * TemplateError escapes.
 */
import { TemplateError } from '../../src/errors.js';
import { parseTemplate, type ExecuteOptions, type ParseOptions } from '../../src/template/index.js';

export function renderOutcome(text: string, dataJson: string, options: ParseOptions & ExecuteOptions = {}): string {
  let template;
  try {
    template = parseTemplate('t', text, options);
  } catch (err) {
    if (!(err instanceof TemplateError)) return `CRASH: ${String(err)}`;
    if (err.code !== 'SI_TEMPLATE_PARSE') return `CRASH: parse error with code ${err.code}`;
    return `parse: ${err.message}`;
  }
  try {
    return template.execute(JSON.parse(dataJson), options);
  } catch (err) {
    if (!(err instanceof TemplateError)) return `CRASH: ${err instanceof Error ? err.stack : String(err)}`;
    if (err.code !== 'SI_TEMPLATE_EXEC') return `CRASH: exec error with code ${err.code}`;
    return `exec: ${err.message}`;
  }
}
