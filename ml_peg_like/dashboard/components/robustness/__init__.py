"""The robustness panel: its layout (:mod:`.layout`), the job callbacks that run the Monte-Carlo
analysis in the background (:mod:`.callbacks`), and what shows the result (:mod:`.tables`,
:mod:`.figures`)."""
