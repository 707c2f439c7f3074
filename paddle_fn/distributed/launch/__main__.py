"""Entry point of ``python -m paddle_fn.distributed.launch``."""
import sys

from paddle_fn.distributed.launch.main import main

sys.exit(main())
