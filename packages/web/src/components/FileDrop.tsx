import { useId, useState, type DragEvent } from 'react';
import { formatBytes } from '../files.js';

/**
 * A file input labelled `label` with a drop zone around it: dropped files join the chosen ones. Keyboard and
 * screen-reader users use the input itself.
 */
export function FileDrop(props: { label: string; files: File[]; onChange: (files: File[]) => void; accept?: string }) {
  const id = useId();
  const [active, setActive] = useState(false);
  const add = (list: FileList | null) => {
    if (!list) return;
    const byName = new Map(props.files.map((file) => [file.name, file]));
    for (const file of Array.from(list)) byName.set(file.name, file);
    props.onChange([...byName.values()]);
  };
  const over = (event: DragEvent) => {
    event.preventDefault();
    setActive(true);
  };
  return (
    <div
      className={`dropzone${active ? ' active' : ''}`}
      onDragOver={over}
      onDragEnter={over}
      onDragLeave={() => setActive(false)}
      onDrop={(event) => {
        event.preventDefault();
        setActive(false);
        add(event.dataTransfer.files);
      }}
    >
      <label htmlFor={id}>{props.label}</label>
      <input id={id} type="file" multiple accept={props.accept} onChange={(event) => add(event.target.files)} />
      <p className="field-hint">or drop files here (text, images, PDF)</p>
      {props.files.length > 0 && (
        <ul className="file-list" aria-label="Chosen files">
          {props.files.map((file) => (
            <li key={file.name}>
              {file.name} <span className="muted">({formatBytes(file.size)})</span>{' '}
              <button type="button" aria-label={`Remove ${file.name}`} onClick={() => props.onChange(props.files.filter((f) => f !== file))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
