// The baseline for start-up time: a Worker that does nothing.
export default { fetch: () => new Response('ok') }
