// `js-words`: a Reasonix tool plugin written in JavaScript, built with `jco componentize`
// (componentize-js, StarlingMonkey) against the world in wit/world.wit:
//
//     reasonix plugin wit --out wit/deps/reasonix-plugin
//     jco componentize app.js --wit wit --world-name js-tool \
//         --disable clocks http random stdio fetch-event -o js-words.wasm
//
// It exports `reasonix:plugin/plugin` (describe) and `reasonix:plugin/tool` (list-tools,
// invoke, preview), asks for read access to the workspace, and serves two tools:
//   - `word_count` counts the words of `text` (no file access);
//   - `head_lines` returns the first lines of a workspace file, read through the WASI
//     filesystem preopen the host gives it only when the workspace grant was made.

import { write as log } from 'reasonix:plugin/log@0.2.0';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';

const WORD_COUNT = {
  type: 'object',
  properties: { text: { type: 'string', description: 'The text whose words to count.' } },
  required: ['text'],
  additionalProperties: false,
};

const HEAD_LINES = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'A file path relative to the workspace.' },
    lines: { type: 'integer', minimum: 1, description: 'How many lines (default 10).' },
  },
  required: ['path'],
  additionalProperties: false,
};

// At most this many bytes are read from a file.
const MAX_BYTES = 64 * 1024;

// A `result<_, error>` export reports its error by throwing the `error` variant.
function invalid(message) {
  return { tag: 'invalid-input', val: message };
}

function parseArguments(name, json, allowed) {
  let args;
  try {
    args = JSON.parse(json);
  } catch (e) {
    throw invalid(`arguments are not JSON (${e.message})`);
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw invalid('arguments must be a JSON object');
  }
  for (const key of Object.keys(args)) {
    if (!allowed.includes(key)) {
      throw invalid(`unknown field \`${key}\`; \`${name}\` takes ${allowed.map((k) => `\`${k}\``).join(', ')}`);
    }
  }
  return args;
}

function wordCount(args) {
  if (typeof args.text !== 'string') {
    throw invalid('`text` is required and must be a string, e.g. {"text": "hi there"}');
  }
  return String(args.text.split(/\s+/).filter((w) => w.length > 0).length);
}

// The WASI error code of a failed filesystem call (jco throws it as the error's `payload`).
function code(e) {
  return (e && e.payload) || (e && e.message) || String(e);
}

function headLines(args, context) {
  if (typeof args.path !== 'string' || args.path === '') {
    throw invalid('`path` is required and must be a non-empty string');
  }
  const lines = args.lines === undefined ? 10 : args.lines;
  if (!Number.isInteger(lines) || lines < 1) {
    throw invalid('`lines` must be a positive integer');
  }
  // The host preopens the workspace at its real path, and only with a workspace grant.
  const workspace = getDirectories().find(([, path]) => path === context.workspace);
  if (workspace === undefined) {
    throw {
      tag: 'denied',
      val: 'no access to the workspace: install js-words with `--grant workspace=read`',
    };
  }
  const [dir] = workspace;
  let file;
  try {
    // Relative to the preopen: WASI itself refuses `..` and absolute paths out of it.
    file = dir.openAt({ symlinkFollow: false }, args.path, {}, { read: true });
  } catch (e) {
    throw { tag: 'not-found', val: `cannot open \`${args.path}\`: ${code(e)}` };
  }
  const chunks = [];
  let offset = 0n;
  for (;;) {
    const [bytes, end] = file.read(BigInt(MAX_BYTES) - offset, offset);
    chunks.push(bytes);
    offset += BigInt(bytes.length);
    if (end || bytes.length === 0 || offset >= BigInt(MAX_BYTES)) break;
  }
  const all = new Uint8Array(Number(offset));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  const text = new TextDecoder().decode(all);
  log('debug', `read ${all.length} bytes of ${args.path}`);
  return text.split('\n').slice(0, lines).join('\n');
}

export const plugin = {
  describe() {
    return {
      name: 'js-words',
      version: '0.1.0',
      description: 'Counts words and shows the head of files (a JavaScript plugin built with jco).',
      capabilities: { workspace: 'read', network: [], env: [], process: false },
      limits: { memoryMib: undefined, callTimeoutMs: undefined },
    };
  },
};

export const tool = {
  listTools() {
    return [
      {
        name: 'word_count',
        description: 'Count the words of `text` (runs of non-space characters).',
        parameters: JSON.stringify(WORD_COUNT),
        readOnly: true,
        guidance: 'Use `word_count` when the user asks how many words a text has.',
      },
      {
        name: 'head_lines',
        description: 'Return the first `lines` lines (default 10) of a workspace file.',
        parameters: JSON.stringify(HEAD_LINES),
        readOnly: true,
        guidance: undefined,
      },
    ];
  },

  invoke(name, argumentsJson, context) {
    switch (name) {
      case 'word_count':
        return wordCount(parseArguments(name, argumentsJson, ['text']));
      case 'head_lines':
        return headLines(parseArguments(name, argumentsJson, ['path', 'lines']), context);
      default:
        throw { tag: 'not-found', val: `this plugin serves \`word_count\` and \`head_lines\`, not \`${name}\`` };
    }
  },

  preview(name) {
    if (name !== 'word_count' && name !== 'head_lines') {
      throw { tag: 'not-found', val: `this plugin serves \`word_count\` and \`head_lines\`, not \`${name}\`` };
    }
    return [];
  },
};
