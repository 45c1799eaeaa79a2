"""A stand-in for OCR's CLI writing `ocr.db` as it does (`packages/cli/src/lib/db`): load the
whole file, change it in memory, write a temporary file beside it and rename it over the
file; in a tight loop with a random few milliseconds between load and write, until the stop
file appears. Each write adds one `orchestration_events` row (`event_type` 'race', `metadata`
its number); each number is printed once its rename is done.

    python ocr_cli_writer.py DB STOPFILE SEED
"""

import os
import random
import sqlite3
import sys
import time


def main() -> None:
    db, stop, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(seed)
    n = 0
    while not os.path.exists(stop):
        with open(db, "rb") as fh:
            data = fh.read()
        con = sqlite3.connect(":memory:")
        con.deserialize(data)
        time.sleep(rng.uniform(0, 0.004))
        n += 1
        con.execute(
            "INSERT INTO orchestration_events (session_id, event_type, metadata) "
            "VALUES ('race', 'race', ?)",
            (str(n),),
        )
        con.commit()
        out = con.serialize()
        con.close()
        tmp = f"{db}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(out)
        os.rename(tmp, db)
        print(n, flush=True)


if __name__ == "__main__":
    main()
