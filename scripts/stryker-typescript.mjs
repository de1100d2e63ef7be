// `node --import ./scripts/stryker-typescript.mjs` (scripts/mutate.sh): StrykerJS rewrites the sandbox's
// tsconfig through the compiler's JavaScript API, which TypeScript 7 (the native port, this project's
// `typescript`) no longer has. For importers inside @stryker-mutator only, `typescript` means 5.9,
// installed as `typescript-5`; everything else, the type checker of scripts/stryker-checker.mjs included, keeps 7.
import { register } from 'node:module'

register('data:text/javascript,' + encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/@stryker-mutator/')) {
    return next('typescript-5', context)
  }
  return next(specifier, context)
}`))
