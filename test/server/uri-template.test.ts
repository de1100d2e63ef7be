import { describe, expect, it } from 'vitest'
import { parseUriTemplate } from '../../src/server/uri-template.js'

describe('RFC 6570 matching', () => {
  it.each([
    ['test://template/{id}/data', 'test://template/123/data', { id: '123' }],
    ['test://template/{id}/data', 'test://template/a%20b/data', { id: 'a b' }],
    ['file:///{+path}', 'file:///etc/hosts', { path: 'etc/hosts' }],
    ['file:///{+path}/meta', 'file:///a/b/c/meta', { path: 'a/b/c' }],
    ['doc://{name}{#section}', 'doc://intro#usage', { name: 'intro', section: 'usage' }],
    ['doc://{name}{#section}', 'doc://intro', { name: 'intro' }],
    ['img://{name}{.ext}', 'img://cat.png', { name: 'cat', ext: 'png' }],
    ['repo://{owner}{/repo,branch}', 'repo://me/proj/main', { owner: 'me', repo: 'proj', branch: 'main' }],
    ['repo://{owner}{/repo,branch}', 'repo://me/proj', { owner: 'me', repo: 'proj' }],
    ['map://pt{;x,y}', 'map://pt;x=1;y=2', { x: '1', y: '2' }],
    ['search://q{?term,page}', 'search://q?term=mcp&page=2', { term: 'mcp', page: '2' }],
    ['search://q{?term,page}', 'search://q?term=mcp', { term: 'mcp' }],
    ['search://q{?term}{&page}', 'search://q?term=x&page=3', { term: 'x', page: '3' }],
    ['db://{a},{b}', 'db://x,y', { a: 'x', b: 'y' }],
    ['user://{id:3}', 'user://abc', { id: 'abc' }],
  ])('%s matches %s', (template, uri, vars) => {
    expect(parseUriTemplate(template).match(uri)).toEqual(vars)
  })

  it.each([
    ['test://template/{id}/data', 'test://template/1/2/data'],
    ['test://template/{id}/data', 'test://template/123/other'],
    ['test://template/{id}/data', 'test://template/%E0%A4%A/data'],
    ['img://{name}{.ext}', 'img://a/b.png'],
    ['search://q{?term}', 'search://q?term'], // "?" names always carry "="; only ";" names may stand alone
  ])('%s does not match %s', (template, uri) => {
    expect(parseUriTemplate(template).match(uri)).toBeUndefined()
  })

  it('lists variables and refuses broken templates', () => {
    expect(parseUriTemplate('x://{a}/{+b}{?c,d}').variables).toEqual(['a', 'b', 'c', 'd'])
    expect(() => parseUriTemplate('x://{a')).toThrow(/unclosed/)
    expect(() => parseUriTemplate('x://{a b}')).toThrow(/invalid expression/)
  })
})

describe('RFC 6570 edge cases', () => {
  it.each([
    ['map://pt{;x,y}', 'map://pt;x;y=2', { y: '2' }], // ";" names may stand without a value
    ['x://{a}', 'x://', { a: '' }], // the first simple variable is there, empty
    ['db://{a,b}', 'db://x', { a: 'x' }], // later ones may be absent
    ['user://{id:30}', 'user://abc', { id: 'abc' }], // a prefix modifier of two digits
    ['pct://{%41}', 'pct://v', { '%41': 'v' }],
    ['pct://{a.%41}', 'pct://v', { 'a.%41': 'v' }],
  ])('%s matches %s', (template, uri, vars) => {
    expect(parseUriTemplate(template).match(uri)).toEqual(vars)
  })

  it.each(['x://{a*b}', 'x://{a,b c}', 'x://{%4}', 'x://{a.%4}', 'x://{}'])('refuses %s', (template) => {
    expect(() => parseUriTemplate(template)).toThrow(/invalid expression/)
  })
})
