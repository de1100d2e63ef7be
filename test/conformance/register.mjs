// `node --import ./test/conformance/register.mjs <conformance cli>`: installs the fs shim for the
// conformance package only (see fs-shim.mjs).
import { register } from 'node:module'

register('./resolve-hook.mjs', import.meta.url)
