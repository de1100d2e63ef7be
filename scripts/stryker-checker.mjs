// A StrykerJS checker (`"checkers": ["typescript-files"]`, scripts/mutate.sh): a mutant that does not type-check
// could never ship, so it is not run. Stryker's own TypeScript checker re-checks the whole program for each
// mutant, about 3 s on two cores, which made it, not the tests, the bottleneck of a run over src/ (hours).
// This one asks TypeScript 7's compiler (its `typescript/unstable/sync` API) for the diagnostics of only the
// files a mutant can break: its own, the files that import it, and through a re-export (index.ts) the files
// that import that. What a change could break further away, through a type inferred in an importer and used
// by the importer's importers, goes unseen: such a mutant is run by the tests instead, as if it compiled.
// Sources are read once, at the start, so the tree may change while a run goes on.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { CheckStatus } from '@stryker-mutator/api/check'
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin'
import { API } from 'typescript/unstable/sync'

// What a mutant is allowed to do that the project's own settings forbid (as Stryker's checker allows).
const LENIENT = { noUnusedLocals: false, noUnusedParameters: false, allowUnreachableCode: true }
const ERROR = 1 // DiagnosticCategory.Error

/** Zero-based line and column to an offset in text. */
function offset(text, { line, column }) {
  let at = 0
  for (let l = 0; l < line; l++) at = text.indexOf('\n', at) + 1
  return at + column
}

class FileChecker {
  static inject = tokens(commonTokens.options, commonTokens.logger)
  #sources = new Map()
  #importers = new Map()
  #mutated = new Map()
  #unknown = new Set()
  #last
  #api
  #project

  constructor(options, log) {
    this.log = log
    const config = resolve(options.typescriptFiles?.tsconfigFile ?? 'tsconfig.json')
    // A config of the checker's own beside the project's (so that relative paths mean the same), never on disk.
    this.#project = resolve(dirname(config), '.stryker-checker.tsconfig.json')
    this.#sources.set(this.#project, JSON.stringify({ extends: config, compilerOptions: LENIENT }))
  }

  async init() {
    this.#api = new API({
      cwd: process.cwd(),
      fs: {
        readFile: (file) => this.#mutated.get(file) ?? this.#sources.get(file),
        fileExists: (file) => (this.#sources.has(file) ? true : undefined),
      },
    })
    const snapshot = this.#api.updateSnapshot({ openProject: this.#project })
    try {
      const { program } = snapshot.getProjects()[0]
      const files = program.getSourceFileNames().filter((f) => !f.includes('/node_modules/'))
      for (const file of files) this.#sources.set(file, readFileSync(file, 'utf8'))
      this.#graph(files)
      const errors = program.getSemanticDiagnostics().filter((d) => d.category === ERROR)
      if (errors.length > 0) throw new Error(`the project does not type-check unmutated: ${errors.length} errors, first in ${errors[0].fileName}`)
      this.log.info('Type-checking each mutant\'s file and its importers with TypeScript 7 (%d files).', files.length)
    } finally {
      snapshot.dispose()
    }
  }

  /** Who imports whom, read from the sources' relative specifiers; `reexports` marks a file passing types on. */
  #graph(files) {
    for (const file of files) this.#importers.set(file, [])
    for (const file of files) {
      for (const m of this.#sources.get(file).matchAll(/^(import|export)\b[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)) {
        const target = resolve(dirname(file), m[2].replace(/\.js$/, '.ts'))
        this.#importers.get(target)?.push({ file, reexports: m[1] === 'export' })
      }
    }
  }

  /** The mutated file, its importers, and the importers of any file re-exporting it, transitively. */
  #affected(file) {
    const seen = new Set([file])
    const passOn = [file]
    while (passOn.length > 0) {
      for (const { file: importer, reexports } of this.#importers.get(passOn.pop()) ?? []) {
        if (seen.has(importer)) continue
        seen.add(importer)
        if (reexports) passOn.push(importer)
      }
    }
    return [...seen]
  }

  group(mutants) {
    return Promise.resolve(mutants.map((m) => [m.id]))
  }

  async check(mutants) {
    const result = {}
    for (const mutant of mutants) result[mutant.id] = this.#checkOne(mutant)
    return result
  }

  #checkOne(mutant) {
    const file = resolve(mutant.fileName)
    const original = this.#sources.get(file)
    if (original === undefined || !this.#importers.has(file)) {
      // Not in the project checked: run by the tests as if it compiled, and said once, so a wrong tsconfig shows.
      if (!this.#unknown.has(file)) this.log.warn('%s is not in %s: its mutants are not type-checked.', file, this.#project)
      this.#unknown.add(file)
      return { status: CheckStatus.Passed }
    }
    const changed = new Set([file])
    if (this.#last && this.#last !== file) {
      this.#mutated.delete(this.#last)
      changed.add(this.#last)
    }
    this.#last = file
    this.#mutated.set(file, original.slice(0, offset(original, mutant.location.start)) + mutant.replacement + original.slice(offset(original, mutant.location.end)))
    const snapshot = this.#api.updateSnapshot({ openProject: this.#project, fileChanges: { changed: [...changed] } })
    try {
      const { program } = snapshot.getProjects()[0]
      const errors = []
      for (const f of this.#affected(file)) {
        for (const d of [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]) if (d.category === ERROR) errors.push({ f, d })
      }
      if (errors.length === 0) return { status: CheckStatus.Passed }
      const reason = errors.slice(0, 3).map(({ f, d }) => `${f.slice(process.cwd().length + 1)}: ${typeof d.text === 'string' ? d.text : JSON.stringify(d.text ?? d.messageText)}`).join('\n')
      return { status: CheckStatus.CompileError, reason }
    } finally {
      snapshot.dispose()
    }
  }

  dispose() {
    this.#api?.close()
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Checker, 'typescript-files', FileChecker)]
export const strykerValidationSchema = {
  $schema: 'http://json-schema.org/draft-07/schema',
  type: 'object',
  properties: {
    typescriptFiles: {
      type: 'object',
      properties: { tsconfigFile: { type: 'string', description: 'The project whose files are checked (default tsconfig.json).' } },
      additionalProperties: false,
    },
  },
}
