/* The Robustness view's browser-side callbacks (ml_peg_like/dashboard/components/robustness_*.py).
   Ids are not named here: Dash passes the values; texts come from the page (the rob-texts store). */
/* Added to the one window.dash_clientside object (replacing it would leave navigation.js holding
   a stale object whose callback_context Dash never sets). */
window.dash_clientside = window.dash_clientside || {};
window.dash_clientside.robustness = {
    /* Run pressed: a request with a nonce, so two sessions running the same settings at the
       same time get distinct job keys (Dash keys a job by its arguments). */
    request: function (n) {
        if (!n) { return window.dash_clientside.no_update; }
        return {n: n, t: Date.now(), r: Math.random().toString(36).slice(2)};
    },
    /* The "settings have changed since this analysis" note: the changes store compared with
       the one the shown analysis ran on (an edit costs no request). */
    stale: function (changes, meta, texts) {
        const canon = (v) => {
            if (Array.isArray(v)) { return '[' + v.map(canon).join(',') + ']'; }
            if (v && typeof v === 'object') {
                return '{' + Object.keys(v).sort().map(
                    (k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
            }
            return JSON.stringify(v === undefined ? null : v);
        };
        if (!meta || !('changes' in meta) || canon(meta.changes || {}) === canon(changes || {})) {
            return ['', 'rob-stale'];
        }
        return [(texts && texts.stale) || '', 'rob-stale on'];
    }
};
