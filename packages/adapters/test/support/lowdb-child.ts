/**
 * A second process for the lowdb cross-process tests (run with `node --import tsx`, from the repository root so
 * that tsx maps `@docevals/core` to its sources). Modes:
 *   stream <dir>  opens the folder and writes forever, printing one line per acknowledged write
 *   hold <dir>    opens the folder, prints `ready`, and keeps it open until killed
 *   open <dir>    tries to open the folder and prints the outcome as JSON
 */
import { updateRecord } from '@docevals/core/internal';
import { lowdbStorage } from '../../src/lowdb/index.js';
import { contentOf, streamDocument, streamEvaluation, streamProcessor, STREAM_ORG } from './lowdb-fixtures.js';

const [mode, dir] = process.argv.slice(2);

// Lines go out with a synchronous write: a line the parent reads was acknowledged before it was printed.
const say = (line: string) => process.stdout.write(`${line}\n`);

async function stream(): Promise<void> {
  const storage = lowdbStorage({ dir });
  await storage.evaluations.insert(streamEvaluation());
  say('ready');
  for (let i = 0; ; i++) {
    switch (i % 5) {
      case 0:
        await storage.processors.insert(streamProcessor(i));
        say(`insert ${i}`);
        break;
      case 1:
        await updateRecord(storage.evaluations, STREAM_ORG, 'eval_stream', (current) => ({
          write: { ...current, iteration_ids: [...current.iteration_ids, `iter_${i}`] },
          result: undefined,
        }));
        say(`update ${i}`);
        break;
      case 2:
        // One document: its file reference, then the document (what the service does).
        await storage.files.retain(STREAM_ORG, `file_${i}`, contentOf(i));
        await storage.documents.put(streamDocument(String(i)), 0);
        say(`document ${i}`);
        break;
      case 4: {
        // A batched compare-and-set: the five documents of the previous step's batch rewritten with one putMany.
        const ids = Array.from({ length: 5 }, (_, k) => `file_${i - 1}_${k}`);
        const current = await storage.documents.getMany(STREAM_ORG, 'eval_stream', ids);
        const written = await storage.documents.putMany(
          current.map((c) => ({ record: { ...c!.value, annotation: { ...c!.value.annotation, n: i } }, expectedVersion: c!.version })),
        );
        if (!written.ok) throw new Error('putMany refused with no other writer');
        say(`putmany ${i}`);
        break;
      }
      default: {
        // A batch: five files in one retainMany, five documents in one insertMany.
        const keys = Array.from({ length: 5 }, (_, k) => `${i}_${k}`);
        await storage.files.retainMany(STREAM_ORG, keys.map((key, k) => ({ fileId: `file_${key}`, content: contentOf(i + k) })));
        await storage.documents.insertMany(keys.map(streamDocument));
        say(`batch ${i}`);
      }
    }
  }
}

async function hold(): Promise<void> {
  lowdbStorage({ dir });
  say('ready');
  setInterval(() => undefined, 60_000);
}

async function open(): Promise<void> {
  try {
    const storage = lowdbStorage({ dir });
    await storage.close();
    say(JSON.stringify({ ok: true }));
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    say(JSON.stringify({ ok: false, code, message }));
  }
}

const modes: Record<string, () => Promise<void>> = { stream, hold, open };
const run = modes[mode ?? ''];
if (!run || !dir) {
  console.error('usage: lowdb-child.ts stream|hold|open <dir>');
  process.exit(2);
}
run().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
