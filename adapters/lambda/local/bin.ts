#!/usr/bin/env node
// The mcp-edge-lambda command (package.json `bin`); cli.ts says what it does.
import { fail, run } from './cli.js'

run(process.argv.slice(2)).catch(fail)
