// A small POSIX-shell reader for the example manifests' scripts (test/examples): splits a script into commands at
// newlines, `;`, `&&` and `||`, and each command into words, with quotes, backslash-newline continuations and
// $VAR / ${VAR} expansion from the environment the job runner gives. What it does not know (command substitution,
// backquotes, a variable nobody sets) is an error, so an example cannot lean on something the test did not check.

export type Env = Readonly<Record<string, string>>;

/** The commands of a script, each as its words after expansion. `$?` stays as it is (only `test $? ...` uses it). */
export function shellCommands(script: string, env: Env): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  const endWord = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    if (words.length) commands.push(words);
    words = [];
  };
  const variable = (name: string) => {
    const value = env[name];
    if (value === undefined)
      throw new Error(`the script uses $${name}, which the runner does not set: ${script}`);
    return value;
  };
  const text = script.replace(/\\\n/g, '');
  let i = 0;
  /** Reads $NAME, ${NAME} or $? at text[i] (a '$'); returns its value. */
  const dollar = (): string => {
    const rest = text.slice(i + 1);
    if (rest.startsWith('?')) {
      i += 2;
      return '$?';
    }
    const braced = /^\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(rest);
    const plain = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (braced) {
      i += 1 + braced[0].length;
      return variable(braced[1]!);
    }
    if (plain) {
      i += 1 + plain[0].length;
      return variable(plain[0]);
    }
    throw new Error(`unsupported $ expression at '${text.slice(i, i + 20)}' in: ${script}`);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '`') throw new Error(`backquotes are not supported: ${script}`);
    if (c === '\n' || c === ';') {
      endCommand();
      i++;
    } else if (text.startsWith('||', i) || text.startsWith('&&', i)) {
      endCommand();
      i += 2;
    } else if (c === '|' || c === '&' || c === '>' || c === '<')
      throw new Error(`'${c}' is not supported: ${script}`);
    else if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${script}`);
      word = (word ?? '') + text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      i++;
      while (text[i] !== '"') {
        if (i >= text.length) throw new Error(`unterminated " in: ${script}`);
        if (text[i] === '$') word += dollar();
        else if (text[i] === '\\' || text[i] === '`')
          throw new Error(`\\ and \` in quotes are not supported: ${script}`);
        else word += text[i++];
      }
      i++;
    } else if (c === '$') word = (word ?? '') + dollar();
    else if (c === '\\') throw new Error(`a backslash outside a line end is not supported: ${script}`);
    else {
      word = (word ?? '') + c;
      i++;
    }
  }
  endCommand();
  return commands;
}
