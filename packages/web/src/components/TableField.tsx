import type { ErrorSchema, FieldProps, RJSFSchema, UiSchema } from '@rjsf/utils';
import type { ReactNode } from 'react';

type Row = Record<string, unknown>;
type Column = { key: string; title: string; schema: RJSFSchema };

const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

const schemaObject = (value: unknown): RJSFSchema | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as RJSFSchema) : null);
const typesOf = (schema: RJSFSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]);

/** The columns of an array whose items are objects of scalar fields (strings, numbers, booleans, enums); else null. */
export function tableColumns(schema: RJSFSchema): Column[] | null {
  const items = schemaObject(schema.items);
  const properties = schemaObject(items?.properties);
  if (!items || !properties || !typesOf(items).includes('object')) return null;
  const columns: Column[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const column = schemaObject(value);
    if (!column) return null;
    const types = typesOf(column);
    if (!Array.isArray(column.enum) && (types.length === 0 || !types.every((type) => SCALARS.has(type)))) return null;
    columns.push({ key, title: typeof column.title === 'string' ? column.title : key, schema: column });
  }
  return columns.length > 0 ? columns : null;
}

/**
 * The uiSchema that shows every array of objects of scalar fields as an editable table (`ui:field: table`), at any
 * depth of objects; other arrays keep rjsf's list.
 */
export function tableUiSchema(schema: RJSFSchema): UiSchema {
  const ui: UiSchema = {};
  if (typesOf(schema).includes('array') && tableColumns(schema)) return { 'ui:field': 'table' };
  for (const [key, value] of Object.entries(schemaObject(schema.properties) ?? {})) {
    const child = schemaObject(value);
    if (!child) continue;
    const childUi = tableUiSchema(child);
    if (Object.keys(childUi).length > 0) ui[key] = childUi;
  }
  return ui;
}

/** A value as a cell's text: strings as they are, nothing as empty, numbers and the rest as JSON. */
const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** A cell's text as the column's type: a number for numbers, null for an empty nullable cell, else the text. */
function cellValue(schema: RJSFSchema, input: string): unknown {
  const types = typesOf(schema);
  if (input === '') return types.includes('null') ? null : undefined;
  if (types.includes('number') || types.includes('integer')) {
    const number = Number(input);
    return Number.isFinite(number) ? number : input;
  }
  if (Array.isArray(schema.enum)) return schema.enum.find((option) => text(option) === input) ?? input;
  return input;
}

function Cell(props: { id: string; column: Column; value: unknown; label: string; errors: string[]; disabled: boolean; onChange: (value: unknown) => void }) {
  const { column, value } = props;
  const common = { id: props.id, 'aria-label': props.label, disabled: props.disabled, 'aria-invalid': props.errors.length > 0, ...(props.errors.length > 0 ? { 'aria-describedby': `${props.id}-errors` } : {}) };
  const types = typesOf(column.schema);
  let input: ReactNode;
  if (Array.isArray(column.schema.enum)) {
    input = (
      <select {...common} value={text(value)} onChange={(event) => props.onChange(cellValue(column.schema, event.target.value))}>
        <option value="">–</option>
        {column.schema.enum.map((option) => (
          <option key={text(option)} value={text(option)}>
            {text(option)}
          </option>
        ))}
      </select>
    );
  } else if (types.includes('boolean')) {
    input = <input {...common} type="checkbox" checked={value === true} onChange={(event) => props.onChange(event.target.checked)} />;
  } else {
    const numeric = types.includes('number') || types.includes('integer');
    input = <input {...common} type={numeric ? 'number' : 'text'} step={numeric ? 'any' : undefined} value={text(value)} onChange={(event) => props.onChange(cellValue(column.schema, event.target.value))} />;
  }
  return (
    <td>
      {input}
      {props.errors.length > 0 && (
        <span id={`${props.id}-errors`} className="cell-error">
          {props.errors.join('; ')}
        </span>
      )}
    </td>
  );
}

/**
 * An array of objects as an editable table (rjsf custom field `table`): a row per item, a column per field (typed
 * inputs, enums as selects), and per row buttons to move it up or down and remove it; "Add row" below. Every input is
 * named by its field and row for assistive technology; the server's issues show in their cell.
 */
export function TableField(props: FieldProps) {
  const columns = tableColumns(props.schema) ?? [];
  const rows: Row[] = Array.isArray(props.formData) ? (props.formData as Row[]) : [];
  const title = typeof props.schema.title === 'string' ? props.schema.title : props.name;
  const id = props.fieldPathId.$id;
  const disabled = props.disabled === true || props.readonly === true;
  const errors = props.errorSchema as (ErrorSchema & Record<number, Record<string, { __errors?: string[] }> | undefined>) | undefined;
  const change = (next: Row[]) => props.onChange(next, props.fieldPathId.path);
  const move = (from: number, to: number) => {
    const next = [...rows];
    const [row] = next.splice(from, 1);
    next.splice(to, 0, row!);
    change(next);
  };
  return (
    <fieldset className="table-field" id={id}>
      <legend>{title}</legend>
      <div className="side-scroll">
        <table aria-label={title}>
          <thead>
            <tr>
              <th scope="col" className="number">
                #
              </th>
              {columns.map((column) => (
                <th key={column.key} scope="col">
                  {column.title}
                </th>
              ))}
              <th scope="col">Row</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                <td className="number">{index + 1}</td>
                {columns.map((column) => (
                  <Cell
                    key={column.key}
                    id={`${id}_${index}_${column.key}`}
                    column={column}
                    value={row?.[column.key]}
                    label={`${title} row ${index + 1} ${column.title}`}
                    errors={errors?.[index]?.[column.key]?.__errors ?? []}
                    disabled={disabled}
                    onChange={(value) => change(rows.map((other, i) => (i === index ? withCell(other, column.key, value) : other)))}
                  />
                ))}
                <td className="row-buttons">
                  <button type="button" disabled={disabled || index === 0} aria-label={`Move row ${index + 1} up`} onClick={() => move(index, index - 1)}>
                    ↑
                  </button>
                  <button type="button" disabled={disabled || index === rows.length - 1} aria-label={`Move row ${index + 1} down`} onClick={() => move(index, index + 1)}>
                    ↓
                  </button>
                  <button type="button" disabled={disabled} aria-label={`Remove row ${index + 1}`} onClick={() => change(rows.filter((_, i) => i !== index))}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {(props.errorSchema?.__errors ?? []).map((message) => (
        <p key={message} className="cell-error">
          {message}
        </p>
      ))}
      <button type="button" disabled={disabled} onClick={() => change([...rows, {}])}>
        Add row to {title}
      </button>
    </fieldset>
  );
}

/** The row with the cell set (an undefined value removes the field). */
function withCell(row: Row | undefined, key: string, value: unknown): Row {
  const next = { ...row };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return next;
}
