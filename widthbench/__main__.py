import sys

from widthbench.cli import main

sys.exit(main())
