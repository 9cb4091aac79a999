"""Reads an iCalendar feed (RFC 5545) from standard input with the `icalendar` package, as a
calendar program would, and prints what it found as JSON: the calendar's properties and its
events. The deadline calendar's test (tests/api/calendar.rs) asserts on this, so the feed is
judged by a parser that is not Kontor's own. A feed it cannot read fails the script."""

import datetime
import json
import sys

import icalendar


def moment(value):
    """A DTSTART/DTEND/DTSTAMP value: an aware date-time in UTC (ISO 8601), or a date."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise ValueError(f"a floating date-time: {value}")
        return {"date_time": value.astimezone(datetime.timezone.utc).isoformat()}
    return {"date": value.isoformat()}


def text(component, name):
    value = component.get(name)
    return None if value is None else str(value)


def main():
    raw = sys.stdin.buffer.read()
    calendar = icalendar.Calendar.from_ical(raw)
    if calendar.name != "VCALENDAR":
        raise ValueError(f"not a calendar: {calendar.name}")
    events = []
    for event in calendar.walk("VEVENT"):
        alarms = []
        for alarm in event.walk("VALARM"):
            trigger = alarm.decoded("TRIGGER")
            alarms.append(
                {
                    "action": text(alarm, "ACTION"),
                    "trigger_seconds": trigger.total_seconds(),
                    "description": text(alarm, "DESCRIPTION"),
                }
            )
        end = event.get("DTEND")
        events.append(
            {
                "uid": text(event, "UID"),
                "summary": text(event, "SUMMARY"),
                "description": text(event, "DESCRIPTION"),
                "url": text(event, "URL"),
                "start": moment(event.decoded("DTSTART")),
                "end": None if end is None else moment(event.decoded("DTEND")),
                "stamp": moment(event.decoded("DTSTAMP")),
                "last_modified": moment(event.decoded("LAST-MODIFIED")),
                "sequence": int(event.get("SEQUENCE")),
                "transparency": text(event, "TRANSP"),
                "alarms": alarms,
            }
        )
    out = {
        "version": text(calendar, "VERSION"),
        "prodid": text(calendar, "PRODID"),
        "name": text(calendar, "X-WR-CALNAME"),
        "refresh_interval_seconds": calendar.decoded("REFRESH-INTERVAL").total_seconds(),
        "published_ttl": text(calendar, "X-PUBLISHED-TTL"),
        "events": events,
    }
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
