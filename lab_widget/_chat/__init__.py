"""The chat brain of one run: its session, epochs, dialogs, pending work, events, state,
answers, slash-command catalog and ``@name`` mentions.
"""
