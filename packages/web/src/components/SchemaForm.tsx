// Form's own module: the package's index also exports a test registry that imports @rjsf/validator-ajv8, which the
// app does not use (see `serverChecked`).
import Form from '@rjsf/core/lib/components/Form.js';
import { ErrorSchemaBuilder, type ErrorSchema, type RJSFSchema, type UiSchema, type ValidatorType } from '@rjsf/utils';
import { useMemo, type ReactNode } from 'react';
import { TableField, tableUiSchema } from './TableField.js';

type Annotation = Record<string, unknown>;

/** A JSON value's type as JSON Schema names it (`integer` for whole numbers, which are `number`s too). */
function typeOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/**
 * Whether `value` fits `schema` at its surface (type, `const`, `enum`): what the form needs to choose among a
 * `oneOf` / `anyOf`'s options. The annotation itself is checked by the server when saved (`documents.update`): the
 * app's Content-Security-Policy allows no `eval`, which a compiling validator (Ajv) needs, and one check of the
 * schema's rules (the server's) is enough.
 */
function fits(schema: RJSFSchema, value: unknown): boolean {
  if (typeof schema !== 'object') return true;
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) return false;
  if (schema.type === undefined || value === undefined) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return typeOf(value).some((type) => (types as string[]).includes(type));
}

/** rjsf's validator, without a compiler: no error before the server's (see `fits`). */
const serverChecked: ValidatorType<Annotation> = {
  validateFormData: () => ({ errors: [], errorSchema: {} }),
  isValid: (schema, formData) => fits(schema, formData),
  rawValidation: () => ({ errors: [] }),
};

/**
 * The server's issues on an annotation (`{ path: 'annotation.bill_to.name', message }`) as rjsf's error schema, so
 * that each shows under its field.
 */
export function issuesToErrorSchema(issues: ReadonlyArray<{ path: string; message: string }>): ErrorSchema<Annotation> {
  const builder = new ErrorSchemaBuilder<Annotation>();
  for (const issue of issues) {
    const path = issue.path.replace(/^annotation\.?/, '').split('.').filter((segment) => segment !== '');
    builder.addErrors(issue.message, path.length === 0 ? undefined : path);
  }
  return builder.ErrorSchema;
}

/** rjsf's custom fields: arrays of objects as editable tables (see `tableUiSchema`). */
const fields = { table: TableField };

/**
 * The ground truth as a form generated from the evaluation's JSON schema (`@rjsf/core`): typed inputs, enums as
 * selects, nested objects as groups, arrays of objects as editable tables (`TableField`), other arrays with add / remove /
 * move buttons. Controlled: `value` in, `onChange` out;
 * `children` are the form's buttons (a submit button sends `onSubmit`). `errors` come from the server's refusal.
 */
export default function SchemaForm(props: {
  schema: Record<string, unknown>;
  value: Annotation;
  onChange: (value: Annotation) => void;
  onSubmit: (value: Annotation) => void;
  errors?: ErrorSchema<Annotation>;
  disabled?: boolean;
  children: ReactNode;
}) {
  const schema = useMemo(() => props.schema as RJSFSchema, [props.schema]);
  const uiSchema = useMemo<UiSchema<Annotation>>(() => ({ ...tableUiSchema(schema), 'ui:title': 'Ground truth' }), [schema]);
  return (
    <Form<Annotation>
      className="schema-form"
      schema={schema}
      uiSchema={uiSchema}
      fields={fields}
      validator={serverChecked}
      formData={props.value}
      onChange={(event) => props.onChange(event.formData ?? {})}
      onSubmit={(event) => props.onSubmit(event.formData ?? {})}
      {...(props.errors ? { extraErrors: props.errors } : {})}
      showErrorList={false}
      noHtml5Validate
      idPrefix="annotation"
      disabled={props.disabled ?? false}
    >
      {props.children}
    </Form>
  );
}
