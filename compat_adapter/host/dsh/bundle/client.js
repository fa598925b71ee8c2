// The web half of the compat-adapter bundle: what a hook tells the person, in DSH's web chat.
//
// DSH 0.2.1's web UI builds its chat from session events through conversation Definitions
// (`ctx.uiConversation.events.register`) and draws each node through the keyed slot
// `conversation.chat.node`. Its own Definitions give words to a turn that ended in an error and to
// nothing a plugin writes: a blocked turn shows as stopped, a systemMessage not at all. The host
// half (plugin.mjs, voice.mjs) writes every notice as the session record
// `plugin:compat-adapter/notice` (the SDK streams it, `dsh headless --json` prints it as a `notice`
// line), and the web client keeps such records in its event window; so this Definition turns each
// one into a chat node at its place in the turn, and the view shows its words.
//
// No build step: a classic script in the browser module format DSH's client loader reads
// (`window.__ModuleLoader__.load`, the package's name as its id), React from the page's own module
// table. DSH serves it inside a combo script that shares one global scope with other plugins'
// modules, so nothing is declared outside the call.

window.__ModuleLoader__.load({
  id: 'compat-adapter-dsh',
  factory(require) {
    const NOTICE_RECORD = 'plugin:compat-adapter/notice'
    const KIND = 'compat-adapter-notice'
    // What each notice is, as a short lead; the text is the hook's (or its vendor's) own words.
    const LEADS = {
      blocked: 'Blocked by a hook',
      stopped: 'Stopped by a hook',
      message: 'Hook message',
      held: 'Hooks held back',
    }

    /** One chat node per notice record, anchored at the record in its turn. */
    const definition = {
      kind: KIND,
      target: 'chat',
      match: { [NOTICE_RECORD]: (event) => ({ id: String(event.seq), role: 'start' }) },
      start: (_context, match) => {
        const data = match.event.data ?? {}
        return { seq: match.event.seq, time: match.event.time, kind: String(data.kind ?? 'message'),
          text: String(data.text ?? ''), origin: data.origin ?? null }
      },
      update: (context) => context.state,
      buildViewNode: (context) => {
        const state = context.state
        if (!state || !state.text) return null
        return {
          key: context.key, kind: KIND, id: context.id, target: 'chat', anchorSeq: state.seq,
          location: context.start?.location ?? context.matches[0]?.location ?? { kind: 'unresolved' },
          visibility: 'visible', groupTree: 'turn',
          data: { ...state, lead: LEADS[state.kind] ?? LEADS.message },
        }
      },
    }

    const React = require('react')
    const h = React.createElement
    function NoticeView({ node }) {
      const { lead, text, kind } = node.data
      return h('div', { role: 'status', 'data-compat-adapter-notice': kind,
        style: { display: 'flex', gap: '0.5em', alignItems: 'baseline', whiteSpace: 'pre-wrap' } },
      h('strong', null, `${lead}:`), h('span', null, text))
    }

    return {
      inject: ['slots', 'uiConversation'],
      apply(ctx) {
        ctx.uiConversation.events.register(definition)
        ctx.slots.inject('conversation.chat.node', () => ctx.slots.register({
          name: 'conversation.chat.node', key: KIND }, NoticeView))
      },
    }
  },
})
