"""multilib: the parts of scripts/multi.py (`make multi`), one concept per module: fleet (what runs),
bank_client (the requests of its own checks), takeover (the crash and the pause across instances),
check (a check's verdict)."""
