"""What is built on the scheduling cycle (kschedctl.scheduler), above it: explain with its
remedies ("what would make it fit"), capacity and nodes-needed, removable nodes, diff between
configurations, replay of a trace, steps on a virtual clock and the node what-ifs' placement of
replacements. Each asks the core's cycle or simulation; the core imports nothing from here.
"""
