"""One scheduling cycle (schedule_one), the unschedulable message, and result objects."""
