/* Merges a row delta (ml_peg_like/dashboard/rowdelta.py) into the grid as ONE synchronous AG
   Grid row transaction through the grid's API: only the changed rows are updated; sorting and
   filtering follow. Positions index the rows of the last full rowData, which is the grid's
   insertion order (forEachNode). Not through the grid's rowTransaction prop: dash-ag-grid
   applies that with applyTransactionAsync (a 50 ms batching wait) after re-rendering the
   component, which made every edit slower than resending the whole table.
   `early` is Dash's request_post hook (rowsync.register): it merges the delta the moment the
   edit's response is parsed, before Dash applies the response's other outputs, and takes it
   out of the response, so no store update, render and clientside callback hop follow
   (that hop made the delta slower than the whole table). */
window.dash_clientside = window.dash_clientside || {};
window.dash_clientside.mplRows = {
    apply: function (delta) {
        const nu = window.dash_clientside.no_update;
        if (!delta || !delta.c) { return nu; }
        const api = window.dash_ag_grid.getApi(window.mplNames.grid);
        const nodes = [];
        api.forEachNode((n) => { nodes.push(n); });
        if (nodes.length !== delta.n) {
            console.error('row delta: the grid holds ' + nodes.length + ' rows, not ' + delta.n);
        }
        const rows = new Array(nodes.length);
        const row = (k) => {
            let r = rows[k];
            if (r === undefined && nodes[k]) {
                r = Object.assign({}, nodes[k].data);
                rows[k] = r;
            }
            return r;
        };
        for (const [f, spec] of Object.entries(delta.c)) {
            // "i": positions, or the name of an earlier field with the same positions;
            // absent: the whole column, "u" listing the rows without the field
            const pos = typeof spec.i === 'string' ? delta.c[spec.i].i : spec.i;
            // "e": the values are integers times 10**e (rowdelta.py _scaled): the division
            // gives the same double as the float's own JSON; "r": steps from the row's
            // current value (_steps: never a half, so Math.round agrees with Python's round)
            const scale = spec.e ? Math.pow(10, spec.e) : 0, step = Boolean(spec.r);
            const vals = spec.v, absent = new Set(spec.u || []);
            for (let k = 0; k < vals.length; k++) {
                const at = pos ? pos[k] : k;
                if (absent.has(at)) { continue; }
                const r = row(at);
                if (!r) { continue; }
                const v = vals[k];
                if (!scale || v === null) {
                    r[f] = v;
                } else {
                    r[f] = (step ? Math.round(r[f] * scale) + v : v) / scale;
                }
            }
        }
        for (const [f, pos] of Object.entries(delta.x || {})) {
            for (const k of pos) {
                const r = row(k);
                if (r) { delete r[f]; }
            }
        }
        const update = rows.filter((r) => r !== undefined);
        if (update.length) { api.applyTransaction({update: update}); }
        return nu;
    },
    early: function (payload, response) {
        const out = response && response[window.mplNames.rowDelta];
        if (!out || !out.data || !out.data.c) { return; }
        try {
            if (!window.dash_ag_grid.getApi(window.mplNames.grid)) { return; }
        } catch (e) {
            return;  // no grid yet: the store and its clientside callback merge it later
        }
        window.dash_clientside.mplRows.apply(out.data);
        delete response[window.mplNames.rowDelta];
    },
};
// run by Dash's request_post hook (rowsync.EARLY_HOOK), looked up on each response
(window.mplEarly = window.mplEarly || []).push(function (payload, response) {
    window.dash_clientside.mplRows.early(payload, response);
});
