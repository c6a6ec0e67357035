/* A large table's grid (ml_peg_like/dashboard/components/bigrows.py): AG Grid's infinite row
   model with this datasource, which asks the server for each block of rows (the state's row
   key, the block, the grid's sort model) and gets them already sorted (dashboard/rowblock.py).
   On a new row key (an edit, a filter, another view) the blocks the grid holds are fetched
   again: only the rows it shows. The edit's response carries the new key's first block in
   the URL's sort: a request for exactly that block (key, rows, sort model) is answered from
   it, without a round trip.
   mplBig.settled(): a promise that the plots drawn after an edit (navigation.js drawCurve,
   plots.js) wait for: resolved once the grid has drawn the new key's rows (or after HOLD_MS).
   A plot drawn first would hold the grid's redraw back by its own duration (measured at
   10,000 models: the curve's Plotly.react, 100-500 ms, ran between the rows' arrival and
   their drawing). */
window.dash_clientside = window.dash_clientside || {};
window.dash_clientside.mplBig = (function () {
    const HOLD_MS = 1000;
    const st = {key: null, url: null, shown: null, first: null, api: null, gate: null};

    // the plots wait until the rows of the new key are drawn
    function hold() {
        if (st.gate) { return; }
        let open = null;
        const p = new Promise((resolve) => { open = resolve; });
        const gate = {p: p, open: () => { if (st.gate === gate) { st.gate = null; } open(); }};
        st.gate = gate;
        setTimeout(gate.open, HOLD_MS);
    }

    // rows of the current key were handed to the grid: open the gate once it has drawn them
    function handed(key) {
        const gate = st.gate;
        if (!gate || key !== st.key) { return; }
        if (!st.api) { gate.open(); return; }
        const api = st.api;
        const done = () => { api.removeEventListener('modelUpdated', done); gate.open(); };
        api.addEventListener('modelUpdated', done);
    }

    function datasource() {
        return {
            mpl: true,
            getRows: function (params) {
                const key = st.key;
                const first = st.first;
                if (first && first.key === key && first.start === params.startRow
                    && first.end === params.endRow && sameSort(first.sort, params.sortModel)) {
                    // a microtask: still before the next paint, never inside the grid's call
                    Promise.resolve().then(() => {
                        handed(key);
                        params.successCallback(first.rows, first.n);
                    });
                    return;
                }
                fetch(st.url, {
                    method: 'POST',
                    headers: {'Content-Type': 'application/json'},
                    body: JSON.stringify({
                        key: key, start: params.startRow, end: params.endRow,
                        sort: params.sortModel,
                    }),
                })
                    .then((r) => (r.ok ? r.json() : Promise.reject(new Error('HTTP ' + r.status))))
                    // a block of an older key: the grid has asked for it again already (its
                    // refresh makes AG Grid ignore this answer)
                    .then((d) => { handed(key); params.successCallback(d.rows, d.n); })
                    .catch(() => { handed(key); params.failCallback(); });
            },
        };
    }

    function sameSort(a, b) {
        if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) { return false; }
        return a.every((s, i) => s.colId === b[i].colId && s.sort === b[i].sort);
    }

    // the key's view and filter parts (rowdelta.row_key: [changes, view, filters])
    function place(key) {
        try { const p = JSON.parse(key); return JSON.stringify([p[1], p[2]]); } catch (e) { return ''; }
    }

    return {
        settled: function () {
            return st.gate ? st.gate.p : Promise.resolve();
        },
        refresh: function (key, _request, src, first) {
            const nu = window.dash_clientside.no_update;
            if (!src || !src.url || typeof key !== 'string') { return nu; }
            if (first && first.key === key && Array.isArray(first.rows)) { st.first = first; }
            if (key !== st.shown) { hold(); }
            st.key = key;
            st.url = src.url;
            window.dash_ag_grid.getApiAsync(window.mplNames.grid).then((api) => {
                st.api = api;
                const ds = api.getGridOption('datasource');
                const before = st.shown;
                st.shown = st.key;
                if (!ds || !ds.mpl) {  // ours (again): the grid asks it for its blocks
                    api.setGridOption('datasource', datasource());
                } else if (before === st.key) {
                    return;
                } else if (before === null || place(before) !== place(st.key)) {
                    api.purgeInfiniteCache();  // other rows: from the top
                    api.ensureIndexVisible(0, 'top');
                } else {
                    api.refreshInfiniteCache();  // the same rows, new values: kept until they come
                }
            });
            return nu;
        },
    };
})();
