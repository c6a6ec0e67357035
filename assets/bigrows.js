/* A large table's grid (ml_peg_like/dashboard/components/bigrows.py): AG Grid's infinite row
   model with this datasource, which asks the server for each block of rows (the state's row
   key, the block, the grid's sort model) and gets them already sorted (dashboard/rowblock.py).
   On a new row key (an edit, a filter, another view) the blocks the grid holds are fetched
   again: only the rows it shows. */
window.dash_clientside = window.dash_clientside || {};
window.dash_clientside.mplBig = (function () {
    const st = {key: null, url: null, shown: null};

    function datasource() {
        return {
            mpl: true,
            getRows: function (params) {
                const key = st.key;
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
                    .then((d) => params.successCallback(d.rows, d.n))
                    .catch(() => params.failCallback());
            },
        };
    }

    // the key's view and filter parts (rowdelta.row_key: [changes, view, filters])
    function place(key) {
        try { const p = JSON.parse(key); return JSON.stringify([p[1], p[2]]); } catch (e) { return ''; }
    }

    return {
        refresh: function (key, _request, src) {
            const nu = window.dash_clientside.no_update;
            if (!src || !src.url || typeof key !== 'string') { return nu; }
            st.key = key;
            st.url = src.url;
            window.dash_ag_grid.getApiAsync(window.mplNames.grid).then((api) => {
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
