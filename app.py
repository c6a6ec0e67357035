"""The dashboard on the embedded demo data.

    python app.py                 # http://127.0.0.1:8050 (add --debug for Dash's debug mode)
    gunicorn app:server           # any WSGI server: `server` is the Flask app

Set ML_PEG_LIKE_DATA to a dataset directory (config.yml + raw_metrics.csv) to serve other data.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app
from ml_peg_like.support.resources import demo_dir

DATA = Path(os.environ.get("ML_PEG_LIKE_DATA") or demo_dir())

config, raw = load_dataset(DATA)
app = create_app(config, raw)
server = app.server

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Serve the ml-peg-like dashboard on the demo data")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8050)
    parser.add_argument(
        "--debug", action="store_true", help="Dash debug mode (dev tools, reloader)"
    )
    args = parser.parse_args()
    app.run(host=args.host, port=args.port, debug=args.debug)
