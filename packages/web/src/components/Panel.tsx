import type { ReactNode } from 'react';

/**
 * A panel's heading with its opening button on the same line (Run, Documents): the button says whether what it
 * opens is open (`aria-expanded`).
 */
export function PanelHeader(props: { id: string; title: string; open: boolean; onToggle: () => void; button: ReactNode; primary?: boolean; hidden?: boolean }) {
  return (
    <div className="row">
      <h2 id={props.id} style={{ margin: 0, flex: 1 }}>
        {props.title}
      </h2>
      {!props.hidden && (
        <button type="button" className={props.primary ? 'primary' : undefined} onClick={props.onToggle} aria-expanded={props.open}>
          {props.button}
        </button>
      )}
    </div>
  );
}

/** A form's submit button (disabled while its call is pending) and its cancel / close button. */
export function FormButtons(props: { submit: ReactNode; pending: boolean; onCancel: () => void; cancel?: string; disabled?: boolean }) {
  return (
    <p className="row" style={{ marginTop: '0.75rem' }}>
      <button type="submit" className="primary" disabled={props.pending || (props.disabled ?? false)}>
        {props.submit}
      </button>
      <button type="button" onClick={props.onCancel}>
        {props.cancel ?? 'Cancel'}
      </button>
    </p>
  );
}

/** A table's header row: one column header per label; a label ending in `#` is a figure (right-aligned), shown without it. */
export function TableHead(props: { columns: ReadonlyArray<string> }) {
  return (
    <thead>
      <tr>
        {props.columns.map((label) => (
          <th key={label} scope="col" className={label.endsWith('#') ? 'number' : undefined}>
            {label.replace(/#$/, '')}
          </th>
        ))}
      </tr>
    </thead>
  );
}
