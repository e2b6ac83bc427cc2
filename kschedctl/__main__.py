from kschedctl.cli.oneshot import run

run()
