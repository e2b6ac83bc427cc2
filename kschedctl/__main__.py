from kschedctl.cli.entry import run

run()
