#!/bin/bash
# Call 3: call 1's script with the verdict's candidate set to lx2 (call 1's rule had refused every
# build), so that lx2 is validated: the example, pytest, sanitizers, bench, stress, crossover.
sed 's/^print("candidate", acc if acc != "dc1" else "none")$/print("candidate lx2")/' \
  "$(dirname "$0")/call1-device-run.sh" > /tmp/call3-device-run.sh
bash /tmp/call3-device-run.sh
