"""Runs one command and writes what it cost as JSON: wall time, CPU time and peak RSS.

Usage: python3 measure.py RESULT_FILE COMMAND [ARG...]

Node cannot read the resource usage of its children's process trees (no RUSAGE_CHILDREN), so the
peers bench starts each crawler under this wrapper. getrusage(RUSAGE_CHILDREN) covers the crawler
and every descendant it waited for; ru_maxrss is the largest single process of them, in KiB. The
command inherits this process's working directory, environment and output.
"""
import json
import resource
import subprocess
import sys
import time

result_file, command = sys.argv[1], sys.argv[2:]
start = time.monotonic()
returncode = subprocess.run(command).returncode
wall_s = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(result_file, 'w') as f:
    json.dump(
        {
            'exitCode': returncode,
            'wallMs': wall_s * 1000,
            'userMs': usage.ru_utime * 1000,
            'systemMs': usage.ru_stime * 1000,
            'maxRssKb': usage.ru_maxrss,
        },
        f,
    )
