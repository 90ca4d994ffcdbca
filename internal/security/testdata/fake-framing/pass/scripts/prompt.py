PROMPT = """<system>
You summarise tables.
</system>
"""
